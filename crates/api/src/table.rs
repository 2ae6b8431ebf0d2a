//! The one table of routes (`routes::table`): each entry names its method, path, summary, who may
//! call it, its request body's and answer's Rust types, and its handler. The router
//! (`routes::router`, `ui::routes`, `lib::app`), the access checks and the OpenAPI document
//! (`openapi.rs`, and from it the UI's client) are all made from it: a new route is one entry and
//! its handler.

use axum::handler::Handler;
use axum::http::Method;
use axum::routing::{on, MethodFilter, MethodRouter};
pub use packdesk_model::status::Role;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::Value;
use std::sync::Arc;

/// A Rust type's schema, asked of the document's generator (a `$ref` to a component).
pub type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

pub fn schema<T: JsonSchema>(g: &mut SchemaGenerator) -> Schema {
    g.subschema_for::<T>()
}

/// Who may call a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// The `service-api-key` header, either environment.
    Key,
    /// The key; a change (any method but GET) with the live key only: the desk's machine-wide
    /// setup (printers, print profiles, import mappings, settings, the scale, the database,
    /// pausing the printing, updates), which live labels use too.
    LiveKeyForChanges,
    /// `LiveKeyForChanges`, and from this machine only (the desk's database).
    LiveKeyForChangesOnThisMachine,
    /// The live key (or an operator's session, held to its role) for reads too: the desk's
    /// people, its audit log and its integration keys, which no sandbox key sees.
    LiveKey,
    /// The key header, or a signed file link (`expires` + `signature`) alone.
    KeyOrSignedLink,
    /// No key: this machine only (the desk UI's session).
    ThisMachine,
    /// No key at all.
    Open,
}

impl Access {
    /// Whether the route needs the key (or a signed link): the key-checked part of the server.
    pub fn needs_key(self) -> bool {
        !matches!(self, Access::ThisMachine | Access::Open)
    }

    /// Whether the sandbox key is refused for any method but GET.
    pub fn live_key_for_changes(self) -> bool {
        matches!(
            self,
            Access::LiveKeyForChanges | Access::LiveKeyForChangesOnThisMachine | Access::LiveKey
        )
    }

    /// Whether only a request from this machine is answered.
    pub fn this_machine(self) -> bool {
        matches!(self, Access::ThisMachine | Access::LiveKeyForChangesOnThisMachine)
    }
}

/// A route's request body.
#[derive(Clone)]
pub enum RequestBody {
    None,
    /// JSON of this type.
    Json(SchemaFn),
    /// JSON of this type, or no body at all (the type's default).
    OptionalJson(SchemaFn),
    /// JSON of one of these types.
    OneOf(Vec<SchemaFn>),
    /// A CSV file.
    Csv,
}

/// What a success answers.
#[derive(Clone)]
pub enum Answer {
    /// The envelope; `data` of this type when there is one.
    Envelope(Option<SchemaFn>),
    /// Something else: the OpenAPI `content` of the 200 answer, as written.
    Content(&'static str, fn() -> Value),
}

/// The state a handler runs with: the router it goes to follows from it.
pub enum Endpoint {
    /// The key-checked routes (`routes::router`).
    Service(MethodRouter<Arc<packdesk_service::Service>>),
    /// The desk UI's session routes (`ui::routes`).
    Ui(MethodRouter<crate::ui::Ui>),
    /// Stateless routes outside the interface (`lib::app`).
    Plain(MethodRouter<()>),
}

/// The state types a route's handler may take.
pub trait RouteState: Clone + Send + Sync + 'static {
    fn wrap(r: MethodRouter<Self>) -> Endpoint;
}

impl RouteState for Arc<packdesk_service::Service> {
    fn wrap(r: MethodRouter<Self>) -> Endpoint {
        Endpoint::Service(r)
    }
}

impl RouteState for crate::ui::Ui {
    fn wrap(r: MethodRouter<Self>) -> Endpoint {
        Endpoint::Ui(r)
    }
}

impl RouteState for () {
    fn wrap(r: MethodRouter<Self>) -> Endpoint {
        Endpoint::Plain(r)
    }
}

/// A query parameter of a route.
pub struct Param {
    pub name: &'static str,
    pub description: Option<&'static str>,
    pub schema: Value,
}

/// A query parameter.
pub fn param(name: &'static str, description: Option<&'static str>, schema: Value) -> Param {
    Param {
        name,
        description,
        schema,
    }
}

/// One route: one method of one path.
pub struct Route {
    pub method: Method,
    /// The whole path, `{param}` for a path parameter (axum's and OpenAPI's syntax alike).
    pub path: &'static str,
    pub summary: &'static str,
    pub access: Access,
    /// The least role that may call it (an operator's session; a key acts as an admin), from
    /// the table of roles (`roles.rs`).
    pub role: Role,
    pub request: RequestBody,
    pub answer: Answer,
    /// Takes the list query (paging, dates, status filters).
    pub list: bool,
    /// Other query parameters.
    pub query: Vec<Param>,
    pub handler: Endpoint,
}

impl Route {
    /// A route taking no body and answering the envelope with untyped `data`; the builders below
    /// say more.
    pub fn new<H, T, S>(method: Method, path: &'static str, summary: &'static str, handler: H) -> Route
    where
        H: Handler<T, S>,
        T: 'static,
        S: RouteState,
    {
        let filter = MethodFilter::try_from(method.clone()).expect("a method axum routes");
        let role = crate::roles::role_of(&method, path);
        Route {
            method,
            path,
            summary,
            access: Access::Key,
            role,
            request: RequestBody::None,
            answer: Answer::Envelope(None),
            list: false,
            query: Vec::new(),
            handler: S::wrap(on(filter, handler)),
        }
    }

    /// `data` of a success is a `D`.
    pub fn data<D: JsonSchema>(mut self) -> Route {
        self.answer = Answer::Envelope(Some(schema::<D>));
        self
    }

    /// The body is JSON of type `B`.
    pub fn body<B: JsonSchema>(mut self) -> Route {
        self.request = RequestBody::Json(schema::<B>);
        self
    }

    /// The body is JSON of type `B`, or none (`B::default()`).
    pub fn optional_body<B: JsonSchema>(mut self) -> Route {
        self.request = RequestBody::OptionalJson(schema::<B>);
        self
    }

    pub fn request(mut self, request: RequestBody) -> Route {
        self.request = request;
        self
    }

    pub fn access(mut self, access: Access) -> Route {
        self.access = access;
        self
    }

    /// Takes the list query.
    pub fn list(mut self) -> Route {
        self.list = true;
        self
    }

    pub fn query(mut self, params: impl IntoIterator<Item = Param>) -> Route {
        self.query.extend(params);
        self
    }

    /// A success that is not the envelope: its media types and schemas (`content` of OpenAPI).
    pub fn content(mut self, description: &'static str, content: fn() -> Value) -> Route {
        self.answer = Answer::Content(description, content);
        self
    }
}

/// `GET path` answering a `D`.
pub fn get<D: JsonSchema, H: Handler<T, S>, T: 'static, S: RouteState>(
    path: &'static str,
    summary: &'static str,
    handler: H,
) -> Route {
    Route::new(Method::GET, path, summary, handler).data::<D>()
}

/// `GET path` with the list query, answering a `D`.
pub fn list<D: JsonSchema, H: Handler<T, S>, T: 'static, S: RouteState>(
    path: &'static str,
    summary: &'static str,
    handler: H,
) -> Route {
    get::<D, H, T, S>(path, summary, handler).list()
}

/// `POST path` taking a `B`, answering a `D`.
pub fn post<B: JsonSchema, D: JsonSchema, H: Handler<T, S>, T: 'static, S: RouteState>(
    path: &'static str,
    summary: &'static str,
    handler: H,
) -> Route {
    Route::new(Method::POST, path, summary, handler).body::<B>().data::<D>()
}

/// `PUT path` taking a `B`, answering a `D`.
pub fn put<B: JsonSchema, D: JsonSchema, H: Handler<T, S>, T: 'static, S: RouteState>(
    path: &'static str,
    summary: &'static str,
    handler: H,
) -> Route {
    Route::new(Method::PUT, path, summary, handler).body::<B>().data::<D>()
}

/// `PATCH path` taking a `B`, answering a `D`.
pub fn patch<B: JsonSchema, D: JsonSchema, H: Handler<T, S>, T: 'static, S: RouteState>(
    path: &'static str,
    summary: &'static str,
    handler: H,
) -> Route {
    Route::new(Method::PATCH, path, summary, handler)
        .body::<B>()
        .data::<D>()
}

/// `DELETE path` answering a `D`.
pub fn delete<D: JsonSchema, H: Handler<T, S>, T: 'static, S: RouteState>(
    path: &'static str,
    summary: &'static str,
    handler: H,
) -> Route {
    Route::new(Method::DELETE, path, summary, handler).data::<D>()
}

/// `POST path` without a body, answering a `D`.
pub fn action<D: JsonSchema, H: Handler<T, S>, T: 'static, S: RouteState>(
    path: &'static str,
    summary: &'static str,
    handler: H,
) -> Route {
    Route::new(Method::POST, path, summary, handler).data::<D>()
}

/// The nest a path belongs to (`/v3/labels` -> `/v3`) and the rest of it (`/labels`).
pub fn split_prefix(path: &'static str) -> (&'static str, &'static str) {
    match path[1..].find('/') {
        Some(i) => path.split_at(i + 1),
        None => (path, "/"),
    }
}

/// The nests whose every path needs the key: a request under one of them without a key is
/// refused even when no route answers it (any other path gets its 404).
pub fn keyed_prefixes(table: &[Route]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = table
        .iter()
        .filter(|r| r.access.needs_key())
        .map(|r| split_prefix(r.path).0)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether the nest takes `Idempotency-Key` on its POSTs: the spec's `/v3` interface.
pub fn takes_idempotency_key(prefix: &str) -> bool {
    prefix == "/v3"
}
