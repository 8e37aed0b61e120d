//! The bundled records' ids, read from the scenario files' names (`01-independent-claims.toml`
//! is the record `independent-claims`, shown first), so no test keeps its own list.

use lane_records::bundled_scenarios;

/// The bundled records' ids, in display order.
pub fn ids() -> Vec<String> {
    let ids: Vec<String> = bundled_scenarios()
        .unwrap()
        .iter()
        .map(|path| {
            let stem = path.file_stem().unwrap().to_str().unwrap();
            let (number, id) = stem
                .split_once('-')
                .unwrap_or_else(|| panic!("{stem}.toml: bundled scenarios are named NN-<id>.toml"));
            assert!(
                number.len() == 2 && number.bytes().all(|b| b.is_ascii_digit()),
                "{stem}.toml: bundled scenarios are named NN-<id>.toml"
            );
            id.to_string()
        })
        .collect();
    assert!(ids.len() >= 2, "the bundled scenarios are missing: {ids:?}");
    ids
}
