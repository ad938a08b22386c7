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
        None => anyhow::bail!("the server is not built yet; try `siege simulate`"),
    }
    Ok(())
}
