//! Build script: the commit the binary is built from, for the metric `arcade_build_info`:
//! `ARCADE_BUILD_COMMIT` when set (an image built without the repository's `.git`), else
//! `git rev-parse --short=12 HEAD`, else `unknown`.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=ARCADE_BUILD_COMMIT");
    let given = std::env::var("ARCADE_BUILD_COMMIT")
        .ok()
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty());
    let commit = given
        .or_else(git_commit)
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=ARCADE_BUILD_COMMIT={commit}");
}

/// `git` in the package's directory, its output trimmed, when it succeeds.
fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    (output.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

/// The short commit of HEAD; the build runs again when HEAD or the branch it names moves.
fn git_commit() -> Option<String> {
    let commit = git(&["rev-parse", "--short=12", "HEAD"])?;
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(branch);
    }
    for path in watched {
        // A file that does not exist would make every build run this script again.
        let file = git(&["rev-parse", "--path-format=absolute", "--git-path", &path]);
        if let Some(file) = file.filter(|f| std::path::Path::new(f).exists()) {
            println!("cargo:rerun-if-changed={file}");
        }
    }
    Some(commit)
}
