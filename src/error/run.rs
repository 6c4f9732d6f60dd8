//! What refuses `orla run` (the `run` operation), beside the top-level
//! error for the same reason as `InstallError`: the operations sit above
//! `context`.

use orla_runtime::invoke::ArgvError;
use orla_runtime::launch::LaunchError;

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Its copy in the cache cannot be made.
    #[error("cannot {what} {}: {source}", path.display())]
    Cache {
        what: &'static str,
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    /// The tool's program cannot be started.
    #[error("cannot run {program}: {source}")]
    Exec {
        program: String,
        source: std::io::Error,
    },
    /// ARGS name an option the input schema does not declare (or are no
    /// options at all).
    #[error(transparent)]
    Options(#[from] ArgvError),
    /// The arguments break the input schema: each argument and rule named.
    #[error("invalid arguments for {tool}: {violations}")]
    Invalid { tool: String, violations: String },
    /// ARGS given to a tool that reads its arguments on stdin.
    #[error("{tool} reads its arguments as one JSON object on stdin (`arguments: json`) and takes no ARGS")]
    ArgsToJsonTool { tool: String },
    /// stdin of a `json` tool cannot be read.
    #[error("cannot read the arguments of {tool} from stdin: {source}")]
    ReadInput {
        tool: String,
        source: std::io::Error,
    },
    /// stdin of a `json` tool is not one JSON object.
    #[error("the input of {tool} is not a JSON object: {problem}")]
    NotAnObject { tool: String, problem: String },
    /// The person declined to run it.
    #[error("{label} was not run: you declined")]
    Cancelled { label: String },
    /// The kernel cannot confine the tool, or its private directory
    /// cannot be made.
    #[error(transparent)]
    Launch(#[from] LaunchError),
}

impl RunError {
    pub fn hint(&self) -> Option<String> {
        let help = |tool: &str| format!("`orla run {tool} -- --help` describes its arguments");
        Some(match self {
            RunError::Cache { .. } | RunError::Launch(LaunchError::Tmp { .. }) => "check that you may write to the cache (`orla cache dir`), or set ORLA_CACHE_DIR to another directory".into(),
            RunError::Exec { .. } => "check the tool's interpreter and dependencies (`orla info NAME` lists them once installed; tool.yaml names them)".into(),
            RunError::Options(ArgvError::Unknown { tool, .. } | ArgvError::MissingValue { tool, .. } | ArgvError::Repeated { tool, .. }) => help(tool),
            RunError::Invalid { tool, .. } => help(tool),
            RunError::ArgsToJsonTool { tool } => format!("pass them on stdin, e.g. echo '{{\"name\": \"value\"}}' | orla run {tool}; {}", help(tool)),
            RunError::ReadInput { .. } => "pass the arguments object on stdin from a file or a pipe".into(),
            RunError::NotAnObject { tool, .. } => format!("pass one JSON object on stdin, e.g. echo '{{\"name\": \"value\"}}' | orla run {tool}; {}", help(tool)),
            RunError::Launch(LaunchError::Sandbox(e)) => e.hint().into(),
            RunError::Cancelled { .. } => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without Landlock, `orla run` refuses a confined tool in the words
    /// and with the hint `orla serve` gives (`sandbox_unavailable`): both
    /// come from the runtime's one function.
    #[test]
    fn a_kernel_without_landlock_refuses_with_the_runtimes_words_and_hint() {
        let answer = Err(std::io::Error::from_raw_os_error(libc::ENOSYS));
        let refusal = orla_runtime::sandbox::usable_abi("fs-read", answer).unwrap_err();
        let hint = refusal.hint();
        let error = crate::error::Error::from(RunError::from(LaunchError::from(refusal)));
        assert_eq!(
            error.render(),
            format!("error: this kernel has no Landlock (the confinement of fs-read needs it: the kernel is built without it)\nhint: {hint}")
        );
        assert!(hint.contains("isolation: best-effort"));
        assert_eq!(error.exit_code(), 1);
    }
}
