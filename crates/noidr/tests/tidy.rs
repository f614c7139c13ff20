//! Every source file of the crate starts with a `//!` comment saying what it is for.

#[test]
fn every_file_has_a_module_doc() {
    let root = std::path::PathBuf::from(
        std::env::var("CARGO_MANIFEST_DIR")
            .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()),
    );
    for dir in ["src", "tests", "examples"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                assert!(
                    text.starts_with("//!"),
                    "{} lacks a //! doc",
                    path.display()
                );
            }
        }
    }
}
