//! Cancel safety for the async handles: an operation that changes the database runs to its end
//! in a task of its own, so dropping the caller's future never cuts it off halfway; what it
//! took (a lease, a dispatched job, a reservation) reaches the caller, or is handed back.

use std::future::Future;

use tokio::sync::oneshot;

use crate::PgError;

/// What gives back a value whose caller stopped waiting for it.
type Undo<T> = Box<dyn FnOnce(T) + Send>;

/// A value on its way to the caller: dropped anywhere before [`keep`](Held::keep) (the caller's
/// future dropped, the answer left in the channel), it is given to its undo.
struct Held<T> {
    value: Option<(T, Undo<T>)>,
}

impl<T> Held<T> {
    fn keep(mut self) -> Option<T> {
        self.value.take().map(|(value, _)| value)
    }
}

impl<T> Drop for Held<T> {
    fn drop(&mut self) {
        if let Some((value, undo)) = self.value.take() {
            undo(value);
        }
    }
}

/// Runs `work` in a task on the current runtime and awaits its answer. If the future this
/// returns is dropped first, `work` still ends, and what it returned is given to `undo`.
pub(crate) async fn detached<T, W, U>(work: W, undo: U) -> Result<T, PgError>
where
    T: Send + 'static,
    W: Future<Output = Result<T, PgError>> + Send + 'static,
    U: FnOnce(T) + Send + 'static,
{
    let (answer, answered) = oneshot::channel();
    tokio::spawn(async move {
        let result = work.await.map(|value| Held {
            value: Some((value, Box::new(undo) as Undo<T>)),
        });
        // Nobody waiting: the result is dropped here, and with it the value (to its undo).
        let _ = answer.send(result);
    });
    match answered.await {
        Ok(result) => result?.keep().ok_or_else(gone),
        Err(_) => Err(gone()),
    }
}

/// The task of an operation ended without an answer: its runtime is shutting down.
fn gone() -> PgError {
    PgError::Database(
        "08006".into(),
        "the runtime shut down before the operation ended: whether it took effect is unknown \
         (recovery marks what its session held)"
            .into(),
    )
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_kept_value_is_not_undone() {
        let undone = Arc::new(AtomicUsize::new(0));
        let count = undone.clone();
        let value = detached(async { Ok(7) }, move |_| {
            count.fetch_add(1, Ordering::SeqCst);
        })
        .await
        .unwrap();
        assert_eq!(value, 7);
        assert_eq!(undone.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn a_value_nobody_waits_for_is_undone_once() {
        let undone = Arc::new(AtomicUsize::new(0));
        let count = undone.clone();
        let (go, wait) = oneshot::channel::<()>();
        let work = async move {
            let _ = wait.await;
            Ok(7)
        };
        let dropped = tokio::time::timeout(
            Duration::from_millis(10),
            detached(work, move |v| {
                assert_eq!(v, 7);
                count.fetch_add(1, Ordering::SeqCst);
            }),
        )
        .await;
        assert!(dropped.is_err(), "the caller stopped waiting");
        go.send(()).unwrap();
        for _ in 0..100 {
            if undone.load(Ordering::SeqCst) == 1 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the value was not undone");
    }

    #[tokio::test]
    async fn an_error_is_the_answer() {
        let result: Result<i32, _> = detached(async { Err(gone()) }, |_| {}).await;
        assert_eq!(result.unwrap_err().code(), "DATABASE");
    }
}
