//! The mechanics: one file per rule that changes the position — setup and entry (22, 19),
//! movement (5, 6), combat, its odds and resolution (8, 9, 18), retreat (8.3), advance (8.4),
//! step losses (8.2, 8.6), leaders (11.1), the Big Gun (10), mines (16), fortifications (13),
//! ruins (17), the sniper (8.1.4), bayonet charges (8.1.3), withdrawal (12), attrition (14),
//! recovery (8.6), replacements (19), civilians (15) and victory (21). Each offers its legal
//! choices and applies them; none decides what comes next — that is the sequence's job.

pub mod advance;
pub mod attrition;
pub mod bayonet;
pub mod big_gun;
pub mod civilians;
pub mod combat;
pub mod defence;
pub mod entry;
pub mod fortifications;
pub mod leaders;
pub mod losses;
pub mod mines;
pub mod movement;
pub mod recovery;
pub mod replacements;
pub mod report;
pub mod resign;
pub mod resolution;
pub mod retreat;
pub mod ruins;
pub mod setup;
pub mod sniper;
pub mod stacking_loss;
pub mod timeout;
pub mod victory;
pub mod withdrawal;
