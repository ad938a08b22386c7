//! The `siege` command: parses arguments and hands over to the library. `anyhow` lives here
//! only; everything below speaks typed errors.

use anyhow::Context;
use clap::{Parser, Subcommand};
use siege::rules::Scenario;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Parser)]
#[command(
    name = "siege",
    version,
    about = "Siege at Peking: the rules engine, game server and tools"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Play random games in-process, checking the invariants after every action.
    Simulate {
        /// How many games to play.
        #[arg(long, default_value_t = 100)]
        games: u64,
        /// Master seed: the same seed plays the same games.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Answer questions about a position: reads `{"position":…,"queries":[…]}` on stdin and
    /// prints `{"answers":[…]}` (the analysis board; it never rolls dice).
    Analyze,
    /// Render the map: `--svg FILE` writes a drawing, `--json` prints the map data.
    Map {
        /// Write the map as SVG to this file.
        #[arg(long)]
        svg: Option<PathBuf>,
        /// Print the map and counter mix as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let scenario = Arc::new(Scenario::load_default().context("loading the scenario data")?);
    match cli.command {
        Some(Command::Simulate { games, seed }) => {
            let report = siege::sim::run(scenario, games, seed);
            println!("{}", serde_json::to_string(&report)?);
            if report.invariant_violations > 0 || report.finished < report.games {
                std::process::exit(1);
            }
        }
        Some(Command::Map { svg, json }) => {
            if json {
                println!("{}", serde_json::to_string(&scenario.to_json())?);
            }
            if let Some(path) = svg {
                std::fs::write(&path, siege::map_svg::render_svg(&scenario.map))
                    .with_context(|| format!("writing {}", path.display()))?;
            }
        }
        Some(Command::Analyze) => analyze(&scenario)?,
        None => anyhow::bail!("the server is not built yet; try `siege simulate`"),
    }
    Ok(())
}

/// `siege analyze`: one request on stdin, one answer on stdout; exit 2 on a bad request.
fn analyze(scenario: &Arc<Scenario>) -> anyhow::Result<()> {
    use siege::rules::analysis::{self, AnalysisError, Request};
    let mut input = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut input).context("reading stdin")?;
    let request: Request = match serde_json::from_str(&input) {
        Ok(r) => r,
        Err(e) => {
            let body =
                serde_json::json!({"error": {"code": "bad_request", "message": e.to_string()}});
            println!("{body}");
            std::process::exit(2);
        }
    };
    match analysis::answer(scenario, &request) {
        Ok(answers) => println!("{}", serde_json::json!({ "answers": answers })),
        Err(AnalysisError::Position(e)) => {
            let body = serde_json::json!({"error": {"code": "invalid_position", "message": e.message, "unit": e.unit, "rule": e.rule}});
            println!("{body}");
            std::process::exit(2);
        }
    }
    Ok(())
}
