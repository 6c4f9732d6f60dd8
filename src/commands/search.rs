//! `orla search QUERY [--json]`: the matches `crate::ops::search` finds, as a
//! table or JSON.

use crate::cli::SearchArgs;
use crate::context::Context;
use crate::error::Error;
use crate::progress::Event;

pub fn run(ctx: &Context, args: &SearchArgs) -> Result<(), Error> {
    let query = args.query.join(" ").to_lowercase();
    let hits = crate::ops::search::search(ctx, &query, args.registry.as_deref())?;
    if args.json {
        let text = serde_json::to_string_pretty(&hits).expect("serialises") + "\n";
        return super::write_stdout(text.as_bytes());
    }
    if hits.is_empty() {
        ctx.reporter.report(Event::NoMatch {
            query: query.to_string(),
        });
        return Ok(());
    }
    let rows: Vec<[String; 4]> = hits
        .iter()
        .map(|h| {
            [
                h.name.clone(),
                h.version.clone().unwrap_or_else(|| {
                    if h.source == "git" {
                        "(git)".into()
                    } else {
                        "-".into()
                    }
                }),
                h.registry.clone(),
                h.description.clone(),
            ]
        })
        .collect();
    super::write_stdout(
        super::table_fit(
            &["NAME", "VERSION", "REGISTRY", "DESCRIPTION"],
            &rows,
            ctx.stdout_width,
        )
        .as_bytes(),
    )
}
