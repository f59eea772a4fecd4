//! The scanner's side of the requests a server sends to its client (`roots/list`, `ping`,
//! `sampling/createMessage`, `elicitation/create`), answered the way the client it introduces
//! itself as would: what that client advertised is answered plausibly (the roots are the
//! persona's project folder, a sampling request gets a model's short answer, an elicitation gets
//! a form filled in with values true to its schema); what it did not advertise is "method not
//! found", as the TypeScript SDK those clients are built on answers. A server that asks for roots
//! and stays dormant when it gets none, or gets the scanner's defaults, is told nothing apart.

// Roots and sampling are what today's clients advertise; rmcp marks them deprecated by a later
// protocol revision (SEP-2577).
#![allow(deprecated)]

use crate::exercise::ClientProfile;
use rmcp::ClientHandler;
use rmcp::model::{
    ClientConfig, CreateMessageRequestParams, CreateMessageResult, CustomRequest, CustomResult,
    ElicitRequestParams, ElicitResult, ErrorData as McpError, ListRootsResult,
};
use rmcp::service::{RequestContext, RoleClient};
use serde_json::{Value, json};

/// Model names the clients report for a sampling answer.
const MODELS: &[&str] = &["claude-sonnet-4-5", "gpt-4.1", "claude-sonnet-4"];

/// What a model says back to a server's sampling request: short, ordinary, about nothing the
/// server could recognise as canned.
const REPLIES: &[&str] = &[
    "Here is a short summary: the main points are the timeline, the owners of each task and the open questions for next week.",
    "Sure. The text reads clearly; I would only shorten the second paragraph and move the dates to the top.",
    "The key takeaway is that the budget stays the same and the release moves by one week.",
];

pub struct Client {
    pub profile: ClientProfile,
    /// The persona's project folder as the server sees it (`file://` root).
    pub project: String,
    pub seed: u64,
}

impl Client {
    fn advertises(&self, cap: &str) -> bool {
        self.profile.capabilities.get(cap).is_some()
    }

    fn pick(&self, items: &[&'static str], salt: u64) -> &'static str {
        let mut r = crate::identity::Rng::new(self.seed ^ salt);
        let s: &&'static str = r.pick(items);
        s
    }

    /// The roots the client reports: the project open in the editor.
    pub fn roots(&self) -> Value {
        let name = self
            .project
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or("workspace");
        json!({"roots": [{"uri": format!("file://{}", self.project), "name": name}]})
    }

    fn sampling_answer(&self) -> Value {
        json!({
            "model": self.pick(MODELS, 0x5a),
            "stopReason": "endTurn",
            "role": "assistant",
            "content": {"type": "text", "text": self.pick(REPLIES, 0x5b)},
        })
    }

    /// A form filled in: every property of the requested schema gets a valid value.
    fn elicitation_answer(&self, params: &Value) -> Value {
        let schema = params
            .get("requestedSchema")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        if params.get("url").is_some() && schema.is_empty() {
            return json!({"action": "accept"});
        }
        let style = crate::inputs::InputStyle {
            work: self.project.clone(),
            seed: self.seed,
        };
        let content = crate::inputs::synthesize_with(&schema, &[], &style, &|_| String::new())
            .into_iter()
            .next()
            .map(|c| Value::Object(c.arguments))
            .unwrap_or_else(|| json!({}));
        json!({"action": "accept", "content": content})
    }
}

fn not_found(method: &str) -> McpError {
    McpError::new(
        rmcp::model::ErrorCode::METHOD_NOT_FOUND,
        "Method not found",
        Some(json!({"method": method})),
    )
}

fn from<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, McpError> {
    serde_json::from_value(v).map_err(|e| McpError::internal_error(e.to_string(), None))
}

impl ClientHandler for Client {
    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, McpError> {
        if !self.advertises("roots") {
            return Err(not_found("roots/list"));
        }
        from(self.roots())
    }

    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        if !self.advertises("sampling") {
            return Err(not_found("sampling/createMessage"));
        }
        from(self.sampling_answer())
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        if !self.advertises("elicitation") {
            return Err(not_found("elicitation/create"));
        }
        let params = serde_json::to_value(&request).unwrap_or(Value::Null);
        from(self.elicitation_answer(&params))
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleClient>,
    ) -> Result<CustomResult, McpError> {
        // Requests rmcp's types do not parse (an older elicitation shape) still get the answer
        // the client would give.
        let params = request.params.clone().unwrap_or(Value::Null);
        let v = match request.method.as_str() {
            "roots/list" if self.advertises("roots") => self.roots(),
            "sampling/createMessage" if self.advertises("sampling") => self.sampling_answer(),
            "elicitation/create" if self.advertises("elicitation") => {
                self.elicitation_answer(&params)
            }
            m => return Err(not_found(m)),
        };
        Ok(CustomResult::new(v))
    }

    fn get_info(&self) -> ClientConfig {
        self.profile.client_info()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(profile: &str) -> Client {
        Client {
            profile: ClientProfile::named(profile).expect("profile"),
            project: "/home/maria/projects/ledger".into(),
            seed: 7,
        }
    }

    #[test]
    fn roots_are_the_persona_project_folder() {
        let c = client("vscode");
        assert_eq!(
            c.roots(),
            json!({"roots": [{"uri": "file:///home/maria/projects/ledger", "name": "ledger"}]})
        );
        let parsed: ListRootsResult = from(c.roots()).expect("parses as ListRootsResult");
        assert_eq!(parsed.roots.len(), 1);
    }

    #[test]
    fn sampling_and_elicitation_answers_parse_and_fill_the_form() {
        let c = client("vscode");
        let _: CreateMessageResult = from(c.sampling_answer()).expect("sampling answer");
        let form = json!({
            "message": "Your details",
            "requestedSchema": {"type": "object", "properties": {
                "email": {"type": "string"}, "confirm": {"type": "boolean"}}}
        });
        let a = c.elicitation_answer(&form);
        assert_eq!(a["action"], "accept");
        assert!(
            a["content"]["email"]
                .as_str()
                .is_some_and(|e| e.contains('@'))
        );
        assert_eq!(a["content"]["confirm"], json!(false));
        let _: ElicitResult = from(a).expect("elicitation answer");
    }

    #[test]
    fn a_capability_the_profile_does_not_advertise_is_not_answered() {
        let c = client("claude-desktop");
        assert!(!c.advertises("roots"));
        assert!(client("vscode").advertises("sampling"));
    }
}
