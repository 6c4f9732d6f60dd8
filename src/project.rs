//! Projects: a directory with an `orla.yaml` (RFC 1 section 6 options), found
//! in the working directory or a parent (RFC 3 7.2). Tools install into its
//! `tools_dir` (default `./tools`) instead of the global root.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::store::InstallRoot;

pub const CONFIG_FILE: &str = "orla.yaml";

/// orla.yaml: the RFC 1 runtime options plus orla's `tools` and `registries`.
#[derive(Debug, Clone, Deserialize, Default)]
pub struct ProjectConfig {
    #[serde(default)]
    pub tools_dir: Option<String>,
    #[serde(default)]
    pub port: Option<u16>,
    #[serde(default)]
    pub timeout: Option<u64>,
    #[serde(default)]
    pub log_format: Option<String>,
    #[serde(default)]
    pub log_level: Option<String>,
    #[serde(default)]
    pub tools: BTreeMap<String, String>,
    #[serde(default)]
    pub registries: serde_yaml::Value,
}

#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is not valid: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
}

#[derive(Debug, Clone)]
pub struct Project {
    pub dir: PathBuf,
    pub config: ProjectConfig,
}

impl Project {
    /// Looks for orla.yaml in `start` and its parents.
    pub fn find(start: &Path) -> Result<Option<Project>, ProjectError> {
        for dir in start.ancestors() {
            let path = dir.join(CONFIG_FILE);
            if path.is_file() {
                return Project::load(dir).map(Some);
            }
        }
        Ok(None)
    }

    pub fn load(dir: &Path) -> Result<Project, ProjectError> {
        let path = dir.join(CONFIG_FILE);
        let text = std::fs::read_to_string(&path).map_err(|source| ProjectError::Io {
            path: path.clone(),
            source,
        })?;
        let config: ProjectConfig = if text.trim().is_empty() {
            ProjectConfig::default()
        } else {
            serde_yaml::from_str(&text).map_err(|e| ProjectError::Invalid {
                path: path.clone(),
                message: e.to_string(),
            })?
        };
        if let Some(tools_dir) = &config.tools_dir {
            if tools_dir.trim().is_empty() {
                return Err(ProjectError::Invalid {
                    path,
                    message: "tools_dir is empty".into(),
                });
            }
        }
        Ok(Project {
            dir: dir.to_path_buf(),
            config,
        })
    }

    pub fn tools_dir(&self) -> PathBuf {
        PathBuf::from(self.config.tools_dir.as_deref().unwrap_or("./tools"))
    }

    pub fn root(&self) -> InstallRoot {
        InstallRoot::project(&self.dir, &self.tools_dir())
    }
}
