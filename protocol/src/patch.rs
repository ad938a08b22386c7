//! RFC 6902 JSON Patch, as far as siege needs it: [`diff`] writes the operations (`add`,
//! `remove`, `replace`) that turn one state message into the next, and [`apply`] applies such
//! operations, so a client that asked for `"patches": true` can rebuild every full state. Paths
//! are RFC 6901 JSON Pointers.

use serde_json::{Map, Value, json};

/// The operations turning `from` into `to`. Objects are compared key by key, arrays element by
/// element (growing at the end with `add`, shrinking from the end with `remove`); anything else
/// that differs is replaced whole.
pub fn diff(from: &Value, to: &Value) -> Vec<Value> {
    let mut ops = Vec::new();
    diff_at(&mut String::new(), from, to, &mut ops);
    ops
}

fn diff_at(path: &mut String, from: &Value, to: &Value, ops: &mut Vec<Value>) {
    if from == to {
        return;
    }
    match (from, to) {
        (Value::Object(a), Value::Object(b)) => diff_objects(path, a, b, ops),
        (Value::Array(a), Value::Array(b)) => {
            let common = a.len().min(b.len());
            for i in 0..common {
                let len = path.len();
                path.push('/');
                path.push_str(&i.to_string());
                diff_at(path, &a[i], &b[i], ops);
                path.truncate(len);
            }
            for i in (common..a.len()).rev() {
                ops.push(json!({"op": "remove", "path": format!("{path}/{i}")}));
            }
            for v in &b[common..] {
                ops.push(json!({"op": "add", "path": format!("{path}/-"), "value": v}));
            }
        }
        _ => ops.push(json!({"op": "replace", "path": path.clone(), "value": to})),
    }
}

fn diff_objects(
    path: &mut String,
    a: &Map<String, Value>,
    b: &Map<String, Value>,
    ops: &mut Vec<Value>,
) {
    for (k, va) in a {
        let len = path.len();
        path.push('/');
        path.push_str(&escape(k));
        match b.get(k) {
            Some(vb) => diff_at(path, va, vb, ops),
            None => ops.push(json!({"op": "remove", "path": path.clone()})),
        }
        path.truncate(len);
    }
    for (k, vb) in b {
        if !a.contains_key(k) {
            ops.push(json!({"op": "add", "path": format!("{path}/{}", escape(k)), "value": vb}));
        }
    }
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// Why a patch does not apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchError(pub String);

impl std::fmt::Display for PatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PatchError {}

/// Apply `add`, `remove` and `replace` operations to `doc`, in order.
pub fn apply(doc: &mut Value, ops: &[Value]) -> Result<(), PatchError> {
    for op in ops {
        let (kind, path) = op_head(op)?;
        apply_op(doc, kind, path, op.get("value").cloned())?;
    }
    Ok(())
}

/// An operation's kind and path.
fn op_head(op: &Value) -> Result<(&str, &str), PatchError> {
    let kind = op["op"]
        .as_str()
        .ok_or_else(|| PatchError(format!("no op in {op}")))?;
    let path = op["path"]
        .as_str()
        .ok_or_else(|| PatchError(format!("no path in {op}")))?;
    Ok((kind, path))
}

/// Apply one operation, `kind` (`add`, `remove`, `replace`) at `path` with `value` (none for
/// `remove`): for a client that reads operations in a form of its own.
pub fn apply_op(
    doc: &mut Value,
    kind: &str,
    path: &str,
    value: Option<Value>,
) -> Result<(), PatchError> {
    if path.is_empty() {
        return match (kind, value) {
            ("add" | "replace", Some(v)) => {
                *doc = v;
                Ok(())
            }
            ("add" | "replace", None) => Err(PatchError("no value".into())),
            _ => Err(PatchError("cannot remove the whole document".into())),
        };
    }
    let (parent_path, last) = path
        .rsplit_once('/')
        .ok_or_else(|| PatchError(format!("bad path {path}")))?;
    let parent = doc
        .pointer_mut(parent_path)
        .ok_or_else(|| PatchError(format!("no {parent_path}")))?;
    let key = unescape(last);
    match (parent, kind) {
        (Value::Object(map), "add" | "replace") => {
            map.insert(key, value.ok_or_else(|| PatchError("no value".into()))?);
        }
        (Value::Object(map), "remove") => {
            map.remove(&key)
                .ok_or_else(|| PatchError(format!("no {path}")))?;
        }
        (Value::Array(list), _) => apply_to_array(list, kind, &key, value)?,
        _ => return Err(PatchError(format!("cannot {kind} at {path}"))),
    }
    Ok(())
}

fn apply_to_array(
    list: &mut Vec<Value>,
    kind: &str,
    key: &str,
    value: Option<Value>,
) -> Result<(), PatchError> {
    let index = if key == "-" {
        list.len()
    } else {
        key.parse::<usize>()
            .map_err(|_| PatchError(format!("bad index {key}")))?
    };
    let need_value = || value.ok_or_else(|| PatchError("no value".into()));
    match kind {
        "add" if index <= list.len() => list.insert(index, need_value()?),
        "replace" if index < list.len() => list[index] = need_value()?,
        "remove" if index < list.len() => {
            list.remove(index);
        }
        _ => return Err(PatchError(format!("cannot {kind} at index {key}"))),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_applied_gives_the_new_document() {
        let a = json!({"seq": 1, "view": {"units": [{"hex": "0101"}, {"hex": null}], "a/b": 1, "gone": true}, "legal_actions": [1, 2, 3]});
        let b = json!({"seq": 2, "view": {"units": [{"hex": "0102"}, {"hex": null}], "a/b": 2, "new": [1]}, "legal_actions": [1]});
        let ops = diff(&a, &b);
        let mut doc = a.clone();
        apply(&mut doc, &ops).unwrap();
        assert_eq!(doc, b);
        let mut back = b.clone();
        apply(&mut back, &diff(&b, &a)).unwrap();
        assert_eq!(back, a);
        assert!(diff(&a, &a).is_empty());
    }

    /// Each operation's parts handed over, its value moved (as `siege load` reads them).
    fn apply_owned(doc: &mut Value, ops: Vec<Value>) -> Result<(), PatchError> {
        for mut op in ops {
            let value = op.as_object_mut().and_then(|o| o.remove("value"));
            let (kind, path) = op_head(&op)?;
            apply_op(doc, kind, path, value)?;
        }
        Ok(())
    }

    #[test]
    fn operations_taken_by_value_apply_as_borrowed_ones_do() {
        let a = json!({"seq": 1, "view": {"units": [{"hex": "0101"}, {"hex": null}], "a/b": 1, "gone": true}, "legal_actions": [1, 2, 3]});
        let b = json!({"seq": 2, "view": {"units": [{"hex": "0102"}], "a/b": 2, "new": [1]}, "legal_actions": [4, 1]});
        let ops = diff(&a, &b);
        let mut owned = a.clone();
        apply_owned(&mut owned, ops.clone()).unwrap();
        assert_eq!(owned, b);
        // Array indices, `-` and a whole-document replace, by value.
        let mut doc = json!({"l": [1, 3]});
        let more = vec![
            json!({"op": "add", "path": "/l/1", "value": 2}),
            json!({"op": "add", "path": "/l/-", "value": 4}),
            json!({"op": "replace", "path": "/l/0", "value": 0}),
            json!({"op": "remove", "path": "/l/3"}),
        ];
        apply_owned(&mut doc, more).unwrap();
        assert_eq!(doc, json!({"l": [0, 2, 3]}));
        apply_owned(
            &mut doc,
            vec![json!({"op": "replace", "path": "", "value": 7})],
        )
        .unwrap();
        assert_eq!(doc, json!(7));
        // A replace without its value is refused, by value as borrowed.
        let bad = vec![json!({"op": "replace", "path": "/x"})];
        let mut d1 = json!({"x": 1});
        assert!(apply_owned(&mut d1, bad.clone()).is_err());
        assert!(apply(&mut d1, &bad).is_err());
        assert_eq!(d1, json!({"x": 1}));
    }

    #[test]
    fn changes_are_small_operations() {
        let a = json!({"seq": 1, "view": {"turn": 1}});
        let b = json!({"seq": 2, "view": {"turn": 1}});
        assert_eq!(
            diff(&a, &b),
            vec![json!({"op": "replace", "path": "/seq", "value": 2})]
        );
    }
}
