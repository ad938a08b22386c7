//! How often one client may create games and take seats: a GCRA rate per [`ClientKey`]
//! (`governor`), refused with 429 `rate_limited` and a `Retry-After` saying when the next one
//! would pass. Creating a game costs a row, a task and the seat's secrets; a flood of them from
//! one address slowed every live game, so the rate is checked before anything is done.

use super::client::ClientKey;
use super::error::AppError;
use super::limits::Limits;
use axum::http::StatusCode;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use siege_protocol::codes;
use std::num::NonZeroU32;

/// What a client is asking to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    Create,
    Join,
    /// Creating an account (each costs a password hash).
    SignUp,
    /// Logging in, or changing a password (each costs a password check).
    LogIn,
}

/// The per-client rates of the server.
#[derive(Debug)]
pub struct Rates {
    create: Option<DefaultKeyedRateLimiter<ClientKey>>,
    join: Option<DefaultKeyedRateLimiter<ClientKey>>,
    sign_up: Option<DefaultKeyedRateLimiter<ClientKey>>,
    log_in: Option<DefaultKeyedRateLimiter<ClientKey>>,
}

impl Rates {
    /// The rates of `limits`; a rate of 0 is no limit.
    pub fn new(limits: &Limits) -> Rates {
        let keyed = |per_minute: u32| {
            NonZeroU32::new(per_minute)
                .map(|n| DefaultKeyedRateLimiter::keyed(Quota::per_minute(n)))
        };
        Rates {
            create: keyed(limits.create_per_minute),
            join: keyed(limits.join_per_minute),
            sign_up: keyed(limits.signup_per_minute),
            log_in: keyed(limits.login_per_minute),
        }
    }

    /// Let `key` do `act` once more, or refuse with 429 naming when it may try again.
    pub fn check(&self, act: Act, key: &ClientKey) -> Result<(), AppError> {
        let limiter = match act {
            Act::Create => &self.create,
            Act::Join => &self.join,
            Act::SignUp => &self.sign_up,
            Act::LogIn => &self.log_in,
        };
        let Some(limiter) = limiter else {
            return Ok(());
        };
        limiter.check_key(key).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            let what = match act {
                Act::Create => "games created",
                Act::Join => "seats taken",
                Act::SignUp => "accounts created",
                Act::LogIn => "log-in attempts",
            };
            let whom = match key {
                ClientKey::Address(_) => "this address",
                ClientKey::Account(_) => "this account",
            };
            AppError::new(
                StatusCode::TOO_MANY_REQUESTS,
                codes::RATE_LIMITED,
                format!("too many {what} from {whom}; try again in {secs} s"),
            )
            .retry_after(secs.max(1))
        })
    }

    /// Forget the clients whose allowance is whole again, so the table does not grow with
    /// every address ever seen.
    pub fn prune(&self) {
        let all = [&self.create, &self.join, &self.sign_up, &self.log_in];
        for limiter in all.into_iter().flatten() {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_passes_then_429_with_retry_after_and_other_clients_are_untouched() {
        let limits = Limits {
            create_per_minute: 3,
            ..Limits::default()
        };
        let rates = Rates::new(&limits);
        let a = ClientKey::of("203.0.113.1".parse().unwrap());
        let b = ClientKey::of("203.0.113.2".parse().unwrap());
        for _ in 0..3 {
            rates.check(Act::Create, &a).unwrap();
        }
        let refused = rates.check(Act::Create, &a).unwrap_err();
        assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(refused.code, codes::RATE_LIMITED);
        // One game every 20 s: the next is at most 20 s away.
        assert!(refused.retry_after.is_some_and(|s| (1..=20).contains(&s)));
        rates.check(Act::Create, &b).unwrap();
        // Joining is counted apart from creating, and refused past its own rate, saying so.
        let joins = Rates::new(&Limits {
            join_per_minute: 2,
            ..Limits::default()
        });
        for _ in 0..2 {
            joins.check(Act::Join, &a).unwrap();
        }
        let refused = joins.check(Act::Join, &a).unwrap_err();
        assert_eq!(refused.code, codes::RATE_LIMITED);
        assert!(
            refused.message.contains("seats taken"),
            "{}",
            refused.message
        );
        joins.check(Act::Join, &b).unwrap();
        rates.check(Act::Join, &a).unwrap();
        // Log-in attempts have their own rate: 10 a minute by default.
        for _ in 0..10 {
            rates.check(Act::LogIn, &a).unwrap();
        }
        let refused = rates.check(Act::LogIn, &a).unwrap_err();
        assert!(
            refused.message.contains("log-in attempts"),
            "{}",
            refused.message
        );
        // A rate of 0 is no limit.
        let open = Rates::new(&Limits::unlimited());
        for _ in 0..1000 {
            open.check(Act::Create, &a).unwrap();
        }
    }
}
