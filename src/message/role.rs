//! `Role`: who authored a message, open to the roles providers invent.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Who authored a message. Providers invent roles (`developer`, `function`, `ipython`…), so any
/// other string is kept as [`Role::Custom`] rather than rejected.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Role {
    /// Instructions that frame the conversation.
    System,
    /// The person talking to the model.
    User,
    /// The model.
    #[default]
    Assistant,
    /// The result of a tool call.
    Tool,
    /// Any other role, spelled as the provider spells it.
    Custom(String),
}

impl Role {
    /// The role as the wire formats spell it.
    pub fn as_str(&self) -> &str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Custom(role) => role,
        }
    }
}

impl From<&str> for Role {
    fn from(role: &str) -> Self {
        match role {
            "system" => Role::System,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            other => Role::Custom(other.to_owned()),
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Role {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let role = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(Role::from(role.as_ref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_custom_roles_round_trip_as_strings() {
        for (role, text) in [
            (Role::System, "\"system\""),
            (Role::User, "\"user\""),
            (Role::Assistant, "\"assistant\""),
            (Role::Tool, "\"tool\""),
            (Role::Custom("developer".into()), "\"developer\""),
        ] {
            assert_eq!(serde_json::to_string(&role).unwrap(), text);
            assert_eq!(serde_json::from_str::<Role>(text).unwrap(), role);
        }
    }
}
