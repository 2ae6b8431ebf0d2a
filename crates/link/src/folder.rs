//! A folder the carrier's own upload tool watches (or a mounted share).

use crate::{fail, part_name, LinkError, Outgoing};
use packdesk_model::transport::FolderTransport;
use std::io::Write;
use std::path::Path;

pub(crate) fn send(t: &FolderTransport, file: &Outgoing<'_>) -> Result<(), LinkError> {
    let dir = Path::new(&t.path);
    if !dir.is_dir() {
        return fail(format!(
            "the folder {} does not exist (or is not mounted): create it, or set another folder",
            t.path
        ));
    }
    let part = dir.join(part_name(file.file_name));
    let done = dir.join(file.file_name);
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&part)?;
        f.write_all(file.bytes)?;
        f.sync_all()?;
        drop(f);
        // The rename is what the watcher sees: the whole file at once, or nothing.
        std::fs::rename(&part, &done)?;
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    };
    write().or_else(|e| {
        let _ = std::fs::remove_file(&part);
        fail(format!("could not write {} in {}: {e}", file.file_name, t.path))
    })
}

pub(crate) fn test(t: &FolderTransport) -> Result<String, LinkError> {
    let dir = Path::new(&t.path);
    if !dir.is_dir() {
        return fail(format!("the folder {} does not exist (or is not mounted)", t.path));
    }
    let probe = dir.join(".packdesk-test.part");
    std::fs::write(&probe, b"")
        .and_then(|_| std::fs::remove_file(&probe))
        .map_err(|e| crate::LinkError(format!("this desk cannot write in {}: {e}", t.path)))?;
    Ok(format!("The folder {} is there and this desk can write in it.", t.path))
}
