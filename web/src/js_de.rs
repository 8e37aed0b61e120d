//! Reads serde types out of values from the browser's `JSON.parse`.
//!
//! This replaces `serde-wasm-bindgen` for deserialization, for size alone: its errors format the
//! unexpected value through `serde::de::Unexpected`, which links float formatting into the wasm.
//! Measured on this viewer: 70.7 KB of gzipped wasm with `serde-wasm-bindgen`, 57.5 KB with
//! that one path patched out, and the 60 KB budget covers the JS glue too. This deserializer
//! handles exactly what JSON can hold (null, booleans, numbers, strings, arrays, objects), keeps
//! the generic parts thin, and names what was expected without echoing the bad value.

use std::fmt;

use js_sys::{Array, JsString, Number, Object};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, Expected, IntoDeserializer, MapAccess,
    SeqAccess, Unexpected, VariantAccess, Visitor,
};
use wasm_bindgen::{JsCast, JsValue};

/// A deserialization error: a message for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }

    // The default implementations print the unexpected value, and printing a float pulls
    // several kilobytes of formatting code into the wasm; the expectation alone is clear enough.
    fn invalid_type(_: Unexpected, expected: &dyn Expected) -> Self {
        Error(format!("invalid type: expected {expected}"))
    }

    fn invalid_value(_: Unexpected, expected: &dyn Expected) -> Self {
        Error(format!("invalid value: expected {expected}"))
    }
}

/// Deserializes `T` from a value produced by `JSON.parse`.
pub fn from_value<T: DeserializeOwned>(value: JsValue) -> Result<T, Error> {
    T::deserialize(Value(value))
}

/// One JSON value.
struct Value(JsValue);

/// What kind of JSON value this is.
enum Kind {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Array),
    Object(Object),
}

impl Value {
    fn kind(&self) -> Kind {
        let v = &self.0;
        if v.is_null() || v.is_undefined() {
            Kind::Null
        } else if let Some(b) = v.as_bool() {
            Kind::Bool(b)
        } else if let Some(n) = v.as_f64() {
            Kind::Number(n)
        } else if let Some(s) = v.as_string() {
            Kind::String(s)
        } else if Array::is_array(v) {
            Kind::Array(v.clone().unchecked_into())
        } else {
            Kind::Object(v.clone().unchecked_into())
        }
    }

    fn integer(&self) -> Option<i64> {
        let n = self.0.as_f64()?;
        Number::is_safe_integer(&self.0).then_some(n as i64)
    }
}

fn wrong<V: de::Error>(expected: &dyn Expected) -> V {
    V::invalid_type(Unexpected::Other("value"), expected)
}

impl<'de> de::Deserializer<'de> for Value {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.kind() {
            Kind::Null => visitor.visit_unit(),
            Kind::Bool(b) => visitor.visit_bool(b),
            Kind::Number(n) => match self.integer() {
                Some(i) if i >= 0 => visitor.visit_u64(i as u64),
                Some(i) => visitor.visit_i64(i),
                None => visitor.visit_f64(n),
            },
            Kind::String(s) => visitor.visit_string(s),
            Kind::Array(a) => visitor.visit_seq(Items::new(a)),
            Kind::Object(o) => visitor.visit_map(Entries::new(&o)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.kind() {
            Kind::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0.as_bool() {
            Some(b) => visitor.visit_bool(b),
            None => Err(wrong(&visitor)),
        }
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.integer() {
            Some(i) if i >= 0 => visitor.visit_u64(i as u64),
            _ => Err(wrong(&visitor)),
        }
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_u64(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0.as_string() {
            Some(s) => visitor.visit_string(s),
            None => Err(wrong(&visitor)),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.kind() {
            Kind::Array(a) => visitor.visit_seq(Items::new(a)),
            _ => Err(wrong(&visitor)),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.kind() {
            Kind::Object(o) => visitor.visit_map(Entries::new(&o)),
            _ => Err(wrong(&visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_map(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    /// Externally tagged: `"variant"` for a unit variant, `{"variant": value}` otherwise.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.kind() {
            Kind::String(tag) => visitor.visit_enum(Variant { tag, value: None }),
            Kind::Object(o) => {
                let entries = Object::entries(&o);
                if entries.length() != 1 {
                    return Err(de::Error::custom(
                        "expected an object with exactly one key naming the variant",
                    ));
                }
                let pair: Array = entries.get(0).unchecked_into();
                let tag = pair.get(0).as_string().unwrap_or_default();
                visitor.visit_enum(Variant {
                    tag,
                    value: Some(pair.get(1)),
                })
            }
            _ => Err(wrong(&visitor)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        i8 i16 i32 i64 i128 u8 u16 u128 f32 f64 char bytes byte_buf unit unit_struct
        tuple tuple_struct
    }
}

/// The items of an array.
struct Items {
    array: Array,
    next: u32,
}

impl Items {
    fn new(array: Array) -> Items {
        Items { array, next: 0 }
    }
}

impl<'de> SeqAccess<'de> for Items {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        if self.next >= self.array.length() {
            return Ok(None);
        }
        let item = self.array.get(self.next);
        self.next += 1;
        seed.deserialize(Value(item)).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some((self.array.length() - self.next) as usize)
    }
}

/// The entries of an object, in order.
struct Entries {
    items: Items,
    value: Option<JsValue>,
}

impl Entries {
    fn new(object: &Object) -> Entries {
        Entries {
            items: Items::new(Object::entries(object)),
            value: None,
        }
    }
}

impl<'de> MapAccess<'de> for Entries {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if self.items.next >= self.items.array.length() {
            return Ok(None);
        }
        let pair: Array = self.items.array.get(self.items.next).unchecked_into();
        self.items.next += 1;
        self.value = Some(pair.get(1));
        let key: String = pair.get(0).unchecked_into::<JsString>().into();
        seed.deserialize(key.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let value = self.value.take().unwrap_or(JsValue::UNDEFINED);
        seed.deserialize(Value(value))
    }
}

/// An enum variant: its tag and, unless it is a unit variant, its value.
struct Variant {
    tag: String,
    value: Option<JsValue>,
}

impl<'de> EnumAccess<'de> for Variant {
    type Error = Error;
    type Variant = Variant;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Variant), Error> {
        let tag: de::value::StringDeserializer<Error> = self.tag.clone().into_deserializer();
        Ok((seed.deserialize(tag)?, self))
    }
}

impl<'de> VariantAccess<'de> for Variant {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.value {
            None => Ok(()),
            Some(_) => Err(de::Error::custom(format_args!(
                "variant `{}` takes no value",
                self.tag
            ))),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        match self.value {
            Some(value) => seed.deserialize(Value(value)),
            None => Err(de::Error::custom(format_args!(
                "variant `{}` needs a value",
                self.tag
            ))),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        Err(wrong(&visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            Some(value) => de::Deserializer::deserialize_map(Value(value), visitor),
            None => Err(wrong(&visitor)),
        }
    }
}
