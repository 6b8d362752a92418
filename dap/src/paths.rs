//! Source paths as the adapter compares them: a client may name one file in several
//! ways (`dir/./k.s`, relative or absolute, through a link).

use std::path::{Component, Path, PathBuf};

/// `path` made absolute and canonical when the file exists (links resolved), else
/// lexically (`.` dropped, `..` taking off the component before it).
pub(crate) fn normal_path(path: &str) -> String {
    let p = Path::new(path);
    if let Ok(real) = std::fs::canonicalize(p) {
        return real.display().to_string();
    }
    let absolute = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().map_or_else(|_| p.to_path_buf(), |d| d.join(p))
    };
    let mut out = PathBuf::new();
    for c in absolute.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::normal_path;

    #[test]
    fn spellings_of_one_path_are_one() {
        let dir = env!("CARGO_MANIFEST_DIR");
        let canonical = normal_path(&format!("{dir}/src/lib.rs"));
        assert_eq!(
            normal_path(&format!("{dir}/./src/../src/lib.rs")),
            canonical
        );
        assert_eq!(normal_path("/nowhere/./a/../b.s"), "/nowhere/b.s");
    }
}
