//! Going beyond the source: other services' events as gestures. A game maps a message type
//! (`table.goal.scored.v1`) to a verb (`table.goal`), takes the member from a payload field and
//! optionally the object from another, so a square "score a goal at table 3" ticks when the
//! referee says so. Filters keep only the messages whose payload fields equal given values
//! (`/counted` is `true`: rehearsal balls tick nothing). The message's id is the gesture's
//! idempotency key. A source may name the message that undoes its gestures (`undoneBy`: the
//! referee's `table.goal.cancelled.v1`) and the fields both carry (`/tableId`, `/gameId`,
//! `/ball`): their values are the occurrence's key ([`ActivitySource::undo_key`]).

use serde_json::Value;

use super::config_error::ConfigError;
use super::limits::{MAX_SOURCE_FILTERS, MAX_TEXT_BYTES, MAX_UNDO_KEY_BYTES};
use super::pool::verb_problem;

/// A member's gesture, what ticks activity cards (its idempotency key, member, verb and
/// optional object): the contract's `activity.recorded.v1`, the same thing.
pub use arcade_contracts::activity::ActivityRecorded as Gesture;

/// An activity source as the organiser describes it, not yet checked (the message type, the
/// verb it counts as, JSON Pointers to the member and object fields, and filters the payload
/// must all meet): the contract's type, the same thing.
pub use arcade_contracts::bingo::ActivitySourceSpec as SourceSpec;

/// A checked activity source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActivitySource {
    spec: SourceSpec,
}

/// Why a mapped message gave no gesture.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GestureError {
    /// The member field is missing or null.
    #[error("{message_type} has no member at {pointer}")]
    NoMember {
        /// The message type.
        message_type: String,
        /// The member field's pointer.
        pointer: String,
    },
    /// A field is neither a string nor a number, or is empty or too long.
    #[error(
        "the {field} at {pointer} in {message_type} is not a string or number of 1 to 200 bytes"
    )]
    NotText {
        /// The message type.
        message_type: String,
        /// `member` or `object`.
        field: &'static str,
        /// The field's pointer.
        pointer: String,
    },
}

fn is_pointer(pointer: &str) -> bool {
    pointer.len() >= 2 && pointer.len() <= MAX_TEXT_BYTES && pointer.starts_with('/')
}

fn type_problem(message_type: &str) -> Option<&'static str> {
    if message_type.len() < 3 || message_type.len() > MAX_TEXT_BYTES || !message_type.contains('.')
    {
        return Some("is not a versioned message type such as table.goal.scored.v1");
    }
    if message_type.starts_with("bingo.") || message_type.starts_with("activity.") {
        return Some("the bingo service already reads: a game maps other services' events");
    }
    None
}

impl ActivitySource {
    /// Checks a source; `position` (from 1) names it in errors.
    pub fn new(position: usize, spec: SourceSpec) -> Result<ActivitySource, ConfigError> {
        if let Some(problem) = type_problem(&spec.message_type) {
            return Err(ConfigError::BadSourceType {
                position,
                message_type: spec.message_type,
                problem,
            });
        }
        if let Some(problem) = verb_problem(&spec.verb, false) {
            return Err(ConfigError::BadSourceVerb {
                position,
                verb: spec.verb,
                problem,
            });
        }
        let fields = [
            ("memberField", Some(&spec.member_field)),
            ("objectField", spec.object_field.as_ref()),
        ];
        for (field, pointer) in fields {
            if let Some(pointer) = pointer
                && !is_pointer(pointer)
            {
                return Err(ConfigError::BadPointer {
                    position,
                    field,
                    pointer: pointer.clone(),
                });
            }
        }
        if spec.filters.len() > MAX_SOURCE_FILTERS {
            return Err(ConfigError::FilterCount {
                position,
                count: spec.filters.len(),
            });
        }
        for (n, filter) in spec.filters.iter().enumerate() {
            let (pointer, value) = (&filter.field, &filter.equals);
            let problem = if !is_pointer(pointer) {
                Some("is not a JSON Pointer to a field, like \"/counted\"")
            } else {
                match value {
                    Value::Array(_) | Value::Object(_) => Some(
                        "compares with a list or an object: only a string, number, boolean or null",
                    ),
                    Value::String(s) if s.len() > MAX_TEXT_BYTES => {
                        Some("compares with a string longer than 200 bytes")
                    }
                    _ => None,
                }
            };
            if let Some(problem) = problem {
                return Err(ConfigError::BadFilter {
                    position,
                    filter: n + 1,
                    field: pointer.clone(),
                    problem,
                });
            }
        }
        if let Some(undo) = &spec.undone_by {
            let problem = if let Some(problem) = type_problem(&undo.message_type) {
                Some(format!("names \"{}\", which {problem}", undo.message_type))
            } else if undo.message_type == spec.message_type {
                Some("names the type the source listens to".to_string())
            } else if undo.key.is_empty() || undo.key.len() > MAX_SOURCE_FILTERS {
                Some(format!("has {} key fields, not 1 to 8", undo.key.len()))
            } else {
                (undo.key.iter().find(|p| !is_pointer(p)))
                    .map(|p| format!("has the key field {p:?}, not a JSON Pointer like \"/ball\""))
            };
            if let Some(problem) = problem {
                return Err(ConfigError::BadUndo { position, problem });
            }
        }
        Ok(ActivitySource { spec })
    }

    /// The message type that undoes its gestures, if it names one.
    pub fn undo_type(&self) -> Option<&str> {
        self.spec
            .undone_by
            .as_ref()
            .map(|u| u.message_type.as_str())
    }

    /// The occurrence a payload (of this source's type or of its undoing type) names: the
    /// undoing type and the values of the key fields, as a JSON array. `None` when the source
    /// names no undo, or a key field is missing, a list or an object, or the key is too long.
    pub fn undo_key(&self, payload: &Value) -> Option<String> {
        let undo = self.spec.undone_by.as_ref()?;
        let values = (undo.key.iter())
            .map(|pointer| match payload.pointer(pointer)? {
                Value::Array(_) | Value::Object(_) => None,
                value => Some(value.clone()),
            })
            .collect::<Option<Vec<Value>>>()?;
        let key = format!("{} {}", undo.message_type, Value::Array(values));
        (key.len() <= MAX_UNDO_KEY_BYTES).then_some(key)
    }

    /// Whether a payload meets every filter (a missing field meets none but those that say
    /// `orMissing`).
    pub fn admits(&self, payload: &Value) -> bool {
        self.spec
            .filters
            .iter()
            .all(|filter| match payload.pointer(&filter.field) {
                Some(value) => *value == filter.equals,
                None => filter.or_missing,
            })
    }

    /// The message type it listens to.
    pub fn message_type(&self) -> &str {
        &self.spec.message_type
    }

    /// Its spec (to put it back on the wire).
    pub fn spec(&self) -> &SourceSpec {
        &self.spec
    }

    /// The gesture a message of this source's type stands for. `entry_id` is the message's id.
    pub fn gesture(&self, payload: &Value, entry_id: &str) -> Result<Gesture, GestureError> {
        let spec = &self.spec;
        let member = match text_at(payload, &spec.member_field) {
            Ok(Some(member)) => member,
            Ok(None) => {
                return Err(GestureError::NoMember {
                    message_type: spec.message_type.clone(),
                    pointer: spec.member_field.clone(),
                });
            }
            Err(()) => return Err(self.not_text("member", &spec.member_field)),
        };
        let object = match &spec.object_field {
            None => None,
            Some(pointer) => {
                text_at(payload, pointer).map_err(|()| self.not_text("object", pointer))?
            }
        };
        Ok(Gesture {
            entry_id: entry_id.to_string(),
            member,
            verb: spec.verb.clone(),
            object,
        })
    }

    fn not_text(&self, field: &'static str, pointer: &str) -> GestureError {
        GestureError::NotText {
            message_type: self.spec.message_type.clone(),
            field,
            pointer: pointer.to_string(),
        }
    }
}

/// The text at a pointer: `Ok(None)` when missing or null; a number reads as its decimal form.
fn text_at(payload: &Value, pointer: &str) -> Result<Option<String>, ()> {
    let text = match payload.pointer(pointer) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(_) => return Err(()),
    };
    if text.is_empty() || text.len() > MAX_TEXT_BYTES {
        return Err(());
    }
    Ok(Some(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn filtered(filters: Vec<(&str, Value)>) -> Result<ActivitySource, ConfigError> {
        let spec = SourceSpec {
            message_type: "table.goal.scored.v1".into(),
            verb: "table.goal".into(),
            member_field: "/side".into(),
            object_field: None,
            filters: filters
                .into_iter()
                .map(|(field, equals)| arcade_contracts::bingo::FieldFilter {
                    field: field.into(),
                    equals,
                    or_missing: false,
                })
                .collect(),
            undone_by: None,
        };
        ActivitySource::new(1, spec)
    }

    #[test]
    fn a_filter_admits_only_payloads_whose_field_equals_its_value() {
        let counted = filtered(vec![("/counted", json!(true)), ("/kind", json!("goal"))]).unwrap();
        assert!(counted.admits(&json!({"counted": true, "kind": "goal"})));
        assert!(!counted.admits(&json!({"counted": false, "kind": "goal"})));
        assert!(!counted.admits(&json!({"counted": "true", "kind": "goal"})));
        assert!(!counted.admits(&json!({"kind": "goal"})));
        assert!(filtered(vec![]).unwrap().admits(&json!({})));
    }

    #[test]
    fn a_filter_or_missing_also_admits_payloads_without_the_field() {
        let mut not_own = filtered(vec![("/ownGoal", json!(false))]).unwrap();
        not_own.spec.filters[0].or_missing = true;
        assert!(not_own.admits(&json!({"side": "hinge"})));
        assert!(not_own.admits(&json!({"side": "hinge", "ownGoal": false})));
        assert!(!not_own.admits(&json!({"side": "hinge", "ownGoal": true})));
    }

    #[test]
    fn bad_filters_are_refused_naming_the_source_and_the_filter() {
        let error = filtered(vec![("/counted", json!(true)), ("counted", json!(1))]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "filter 2 (\"counted\") of activity source 1 is not a JSON Pointer to a field, like \"/counted\""
        );
        let error = filtered(vec![("/a", json!([1]))]).unwrap_err().to_string();
        assert!(
            error.contains("only a string, number, boolean or null"),
            "{error}"
        );
        let many = (0..9).map(|_| ("/a", json!(1))).collect();
        assert_eq!(
            filtered(many).unwrap_err(),
            ConfigError::FilterCount {
                position: 1,
                count: 9
            }
        );
    }

    fn goal_source(object_field: Option<&str>) -> ActivitySource {
        let spec = SourceSpec {
            message_type: "table.goal.scored.v1".into(),
            verb: "table.goal".into(),
            member_field: "/scorer".into(),
            object_field: object_field.map(Into::into),
            filters: Vec::new(),
            undone_by: None,
        };
        ActivitySource::new(1, spec).unwrap()
    }

    #[test]
    fn a_goal_becomes_the_scorers_gesture_at_the_table() {
        let payload = json!({"tableId": "table-3", "scorer": "alice", "team": "red"});
        let gesture = goal_source(Some("/tableId"))
            .gesture(&payload, "m-1")
            .unwrap();
        assert_eq!(
            gesture,
            Gesture {
                entry_id: "m-1".into(),
                member: "alice".into(),
                verb: "table.goal".into(),
                object: Some("table-3".into()),
            }
        );
    }

    #[test]
    fn nested_fields_and_numbers_are_read_through_the_pointer() {
        let source = ActivitySource::new(
            1,
            SourceSpec {
                message_type: "race.lap.completed.v1".into(),
                verb: "race.lap".into(),
                member_field: "/car/driver".into(),
                object_field: Some("/lap".into()),
                filters: Vec::new(),
                undone_by: None,
            },
        )
        .unwrap();
        let gesture = source
            .gesture(&json!({"car": {"driver": 42}, "lap": 3}), "m-2")
            .unwrap();
        assert_eq!(
            (gesture.member.as_str(), gesture.object.as_deref()),
            ("42", Some("3"))
        );
    }

    #[test]
    fn a_missing_object_is_a_gesture_without_object_but_a_missing_member_is_an_error() {
        let source = goal_source(Some("/tableId"));
        let gesture = source.gesture(&json!({"scorer": "bob"}), "m-3").unwrap();
        assert_eq!(gesture.object, None);
        assert_eq!(
            source.gesture(&json!({"tableId": "table-3"}), "m-4"),
            Err(GestureError::NoMember {
                message_type: "table.goal.scored.v1".into(),
                pointer: "/scorer".into()
            })
        );
        assert!(matches!(
            source.gesture(&json!({"scorer": ["a"]}), "m-5"),
            Err(GestureError::NotText {
                field: "member",
                ..
            })
        ));
        assert!(matches!(
            source.gesture(&json!({"scorer": "a", "tableId": {"n": 3}}), "m-6"),
            Err(GestureError::NotText {
                field: "object",
                ..
            })
        ));
        assert!(matches!(
            source.gesture(&json!({"scorer": ""}), "m-7"),
            Err(GestureError::NotText {
                field: "member",
                ..
            })
        ));
    }

    #[test]
    fn a_goal_and_its_cancel_name_the_same_occurrence() {
        let mut spec = goal_source(None).spec;
        spec.undone_by = arcade_contracts::bingo::UndoneBy::known_for(&spec.message_type);
        let source = ActivitySource::new(1, spec).unwrap();
        assert_eq!(source.undo_type(), Some("table.goal.cancelled.v1"));
        let goal = json!({"tableId": "t-1", "gameId": "g-1", "ball": 3, "scorer": "a"});
        let cancel = json!({"tableId": "t-1", "gameId": "g-1", "ball": 3, "reason": "twice"});
        let key = source.undo_key(&goal).unwrap();
        assert_eq!(key, r#"table.goal.cancelled.v1 ["t-1","g-1",3]"#);
        assert_eq!(source.undo_key(&cancel), Some(key));
        assert_eq!(
            source.undo_key(&json!({"tableId": "t-1", "gameId": "g-1"})),
            None
        );
        let listed = json!({"tableId": "t-1", "gameId": "g-1", "ball": [3]});
        assert_eq!(source.undo_key(&listed), None);
        assert_eq!(
            goal_source(None).undo_key(&goal),
            None,
            "no undoneBy, no key"
        );
    }

    #[test]
    fn bad_sources_are_refused_with_reasons() {
        let spec = |t: &str, verb: &str, member: &str, object: Option<&str>| SourceSpec {
            message_type: t.into(),
            verb: verb.into(),
            member_field: member.into(),
            object_field: object.map(Into::into),
            filters: Vec::new(),
            undone_by: None,
        };
        let refused = |s| ActivitySource::new(2, s).unwrap_err().to_string();
        assert!(refused(spec("goal", "g", "/a", None)).contains("not a versioned message type"));
        assert!(refused(spec("activity.recorded.v1", "g", "/a", None)).contains("already reads"));
        assert!(refused(spec("bingo.card.won.v1", "g", "/a", None)).contains("already reads"));
        assert!(refused(spec("t.g.v1", "table.*", "/a", None)).contains("may not contain *"));
        assert!(refused(spec("t.g.v1", "", "/a", None)).contains("is empty"));
        assert_eq!(
            ActivitySource::new(2, spec("t.g.v1", "g", "scorer", None)),
            Err(ConfigError::BadPointer {
                position: 2,
                field: "memberField",
                pointer: "scorer".into()
            })
        );
        assert_eq!(
            ActivitySource::new(2, spec("t.g.v1", "g", "/a", Some("/"))),
            Err(ConfigError::BadPointer {
                position: 2,
                field: "objectField",
                pointer: "/".into()
            })
        );
    }
}
