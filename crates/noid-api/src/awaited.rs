//! noid-binder's writer threads answer through a callback; a task of this service
//! awaits the answer instead ([`submit`]), so no task blocks a runtime thread while
//! its directory's thread works.

use noid_binder::{failure, DirectoryWriter, Who, Work, WorkResult};

/// Queue `work` on `writer` and await its answer.
pub async fn submit(writer: &DirectoryWriter, work: Work, who: Who, read_only: bool) -> WorkResult {
    let (tx, rx) = tokio::sync::oneshot::channel();
    writer.submit(work, who, read_only, move |a| {
        let _ = tx.send(a);
    });
    rx.await
        .unwrap_or_else(|_| failure("the store's thread dropped the request"))
}
