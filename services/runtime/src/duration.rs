//! Durations in settings: a whole number and a unit (`500ms`, `5s`, `2m`, `1h`, `7d`), read
//! the same way by every setting that takes one; each setting says which units it takes.

use std::time::Duration;

/// How one setting writes a duration: the units it takes and what its errors suggest.
#[derive(Debug, Clone, Copy)]
pub struct DurationSyntax {
    /// The units it takes, each with its length in milliseconds, in the order errors list them.
    pub units: &'static [(&'static str, u64)],
    /// What an error shows as a well-written value, e.g. `5s or 500ms`.
    pub examples: &'static str,
    /// Whether `off` (or a bare `0`) is taken, as a zero duration.
    pub off: bool,
}

/// Milliseconds, seconds, minutes, hours and days.
pub const UP_TO_DAYS: &[(&str, u64)] = &[
    ("ms", 1),
    ("s", 1_000),
    ("m", 60_000),
    ("h", 3_600_000),
    ("d", 86_400_000),
];

/// Milliseconds, seconds, minutes and hours.
pub const UP_TO_HOURS: &[(&str, u64)] = UP_TO_DAYS.split_at(4).0;

impl DurationSyntax {
    /// Reads `text` (surrounding white space ignored); the error is a sentence for the user.
    pub fn parse(&self, text: &str) -> Result<Duration, String> {
        let text = text.trim();
        if self.off && (text == "off" || text == "0") {
            return Ok(Duration::ZERO);
        }
        let split = text
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len());
        let (number, unit) = text.split_at(split);
        let number: u64 = number.parse().map_err(|_| {
            format!(
                "\"{text}\" is not a duration: expected a whole number and a unit, e.g. {}",
                self.examples
            )
        })?;
        let ms_per_unit = match self.units.iter().find(|(name, _)| *name == unit) {
            Some(&(_, ms)) => ms,
            None if unit.is_empty() => {
                let off = if self.off { ", or off" } else { "" };
                return Err(format!(
                    "\"{text}\" has no unit: write e.g. {}{off}",
                    self.examples
                ));
            }
            None => {
                return Err(format!(
                    "\"{text}\" has an unknown unit: \"{unit}\" is not a unit of time, use {}",
                    self.unit_list()
                ));
            }
        };
        number
            .checked_mul(ms_per_unit)
            .map(Duration::from_millis)
            .ok_or_else(|| format!("\"{text}\" is too long"))
    }

    /// The units' names as a sentence: `ms, s, m or h`.
    fn unit_list(&self) -> String {
        let names: Vec<&str> = self.units.iter().map(|(name, _)| *name).collect();
        match names.split_last() {
            Some((last, [])) => (*last).to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SYNTAX: DurationSyntax = DurationSyntax {
        units: UP_TO_DAYS,
        examples: "60s or 5m",
        off: true,
    };

    #[test]
    fn reads_each_unit_and_off() {
        assert_eq!(SYNTAX.parse("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(SYNTAX.parse(" 2d "), Ok(Duration::from_secs(2 * 86_400)));
        assert_eq!(SYNTAX.parse("off"), Ok(Duration::ZERO));
        assert_eq!(SYNTAX.parse("0"), Ok(Duration::ZERO));
    }

    #[test]
    fn says_what_is_wrong() {
        assert_eq!(
            SYNTAX.parse("6w").unwrap_err(),
            "\"6w\" has an unknown unit: \"w\" is not a unit of time, use ms, s, m, h or d"
        );
        assert_eq!(
            SYNTAX.parse("60").unwrap_err(),
            "\"60\" has no unit: write e.g. 60s or 5m, or off"
        );
        assert!(
            SYNTAX
                .parse("99999999999999999d")
                .unwrap_err()
                .contains("too long")
        );
        let hours = DurationSyntax {
            off: false,
            units: UP_TO_HOURS,
            ..SYNTAX
        };
        assert!(hours.parse("off").unwrap_err().contains("not a duration"));
        assert!(hours.parse("1d").unwrap_err().contains("use ms, s, m or h"));
    }
}
