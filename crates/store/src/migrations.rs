//! The schema of both databases: one list of migrations, one version line. A step runs on both
//! databases unless it is named as one database's own: SQLite's history before the shared
//! database existed (1 to 8), PostgreSQL's start at 8 (the same tables, plus what sharing needs).
//! A new table or column is one `Step::Both`, written as SQLite takes it; PostgreSQL receives it
//! with its own names for two types (`BLOB` as `BYTEA`, `INTEGER` as `BIGINT`: every integer is
//! Rust's i64, times in microseconds) and without SQLite's `WITHOUT ROWID`.
//! SQLite records the version in `PRAGMA user_version`, PostgreSQL in `meta.schema_version`.

use crate::sql::Dialect;
use rusqlite::Connection;

/// What a migration runs, and where.
pub enum Step {
    /// The same statements on both databases.
    Both(&'static str),
    /// Only one desk's SQLite file has it.
    Sqlite(&'static str),
    /// Only the shared PostgreSQL database has it.
    Postgres(&'static str),
}

/// The steps of each version, in order (version = position + 1).
const MIGRATIONS: &[&[Step]] = &[
    // 1: keys, shipper accounts, tracking numbers, labels, files.
    &[Step::Sqlite(
        r#"
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE api_keys (
        env TEXT PRIMARY KEY CHECK (env IN ('live', 'sandbox')),
        key_hash BLOB NOT NULL,
        key_sealed BLOB NOT NULL,
        created_at INTEGER NOT NULL
    );
    CREATE TABLE shipper_accounts (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        slug TEXT NOT NULL,
        status TEXT NOT NULL,
        description TEXT NOT NULL,
        timezone TEXT NOT NULL,
        address TEXT,
        settings TEXT NOT NULL,
        credentials BLOB NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE INDEX shipper_accounts_page ON shipper_accounts (env, created_at DESC, id DESC);
    -- Next serial to try, per account and pool (live) or per carrier and pool (sandbox sample range).
    CREATE TABLE tracking_counters (scope TEXT PRIMARY KEY, next_serial INTEGER NOT NULL);
    -- Every tracking number ever issued; the key makes a second issue impossible.
    CREATE TABLE tracking_numbers (
        env TEXT NOT NULL,
        slug TEXT NOT NULL,
        number TEXT NOT NULL,
        label_id TEXT NOT NULL,
        PRIMARY KEY (env, slug, number)
    ) WITHOUT ROWID;
    CREATE INDEX tracking_numbers_label ON tracking_numbers (label_id);
    CREATE TABLE labels (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        shipper_account_id TEXT NOT NULL REFERENCES shipper_accounts (id),
        status TEXT NOT NULL,
        order_number TEXT,
        search_text TEXT NOT NULL,
        manifest_id TEXT,
        request TEXT NOT NULL,
        record TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX labels_order_number ON labels (shipper_account_id, order_number)
        WHERE order_number IS NOT NULL AND status <> 'cancelled';
    CREATE INDEX labels_page ON labels (env, created_at DESC, id DESC);
    CREATE INDEX labels_account ON labels (shipper_account_id, status, created_at);
    CREATE TABLE files (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        file_type TEXT NOT NULL,
        paper_size TEXT NOT NULL,
        bytes BLOB NOT NULL,
        created_at INTEGER NOT NULL
    );
    CREATE INDEX files_owner ON files (owner_id);
    "#,
    )],
    // 2: the records of the other operations; all share one shape (see records.rs).
    &[Step::Sqlite(
        r#"
    CREATE TABLE cancel_labels (
        id TEXT PRIMARY KEY, env TEXT NOT NULL, shipper_account_id TEXT, status TEXT NOT NULL,
        record TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
    );
    CREATE INDEX cancel_labels_page ON cancel_labels (env, created_at DESC, id DESC);
    CREATE TABLE manifests (
        id TEXT PRIMARY KEY, env TEXT NOT NULL, shipper_account_id TEXT, status TEXT NOT NULL,
        record TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
    );
    CREATE INDEX manifests_page ON manifests (env, created_at DESC, id DESC);
    CREATE TABLE bulk_downloads (
        id TEXT PRIMARY KEY, env TEXT NOT NULL, shipper_account_id TEXT, status TEXT NOT NULL,
        record TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
    );
    CREATE INDEX bulk_downloads_page ON bulk_downloads (env, created_at DESC, id DESC);
    CREATE TABLE rates (
        id TEXT PRIMARY KEY, env TEXT NOT NULL, shipper_account_id TEXT, status TEXT NOT NULL,
        record TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
    );
    CREATE INDEX rates_page ON rates (env, created_at DESC, id DESC);
    CREATE TABLE address_validations (
        id TEXT PRIMARY KEY, env TEXT NOT NULL, shipper_account_id TEXT, status TEXT NOT NULL,
        record TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
    );
    CREATE INDEX address_validations_page ON address_validations (env, created_at DESC, id DESC);
    CREATE INDEX labels_manifestable ON labels (shipper_account_id, status, manifest_id);
    "#,
    )],
    // 3: async jobs, webhook settings, deliveries and their attempts. A failed label frees its
    // order_number like a cancelled one (so the request can be sent again).
    &[Step::Sqlite(
        r#"
    DROP INDEX labels_order_number;
    CREATE UNIQUE INDEX labels_order_number ON labels (shipper_account_id, order_number)
        WHERE order_number IS NOT NULL AND status NOT IN ('cancelled', 'failed');
    -- One row per accepted async request; seq is the order of acceptance.
    CREATE TABLE jobs (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        env TEXT NOT NULL,
        kind TEXT NOT NULL,
        lane TEXT NOT NULL,
        request TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('queued', 'done')),
        accepted_at INTEGER NOT NULL,
        finished_at INTEGER
    );
    CREATE INDEX jobs_queued ON jobs (state, seq);
    CREATE TABLE webhook_settings (
        env TEXT PRIMARY KEY CHECK (env IN ('live', 'sandbox')),
        url TEXT NOT NULL,
        enabled INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE TABLE webhook_deliveries (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        event TEXT NOT NULL,
        record_id TEXT NOT NULL,
        url TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts INTEGER NOT NULL,
        round_failures INTEGER NOT NULL,
        next_attempt_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
    CREATE INDEX webhook_deliveries_page ON webhook_deliveries (env, created_at DESC, id DESC);
    CREATE TABLE webhook_attempts (
        delivery_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        at INTEGER NOT NULL,
        url TEXT NOT NULL,
        status_code INTEGER,
        error TEXT,
        duration_us INTEGER NOT NULL,
        PRIMARY KEY (delivery_id, attempt)
    ) WITHOUT ROWID;
    "#,
    )],
    // 4: printers of the desk, a profile per document type, and every print job.
    &[Step::Sqlite(
        r#"
    CREATE TABLE printers (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        transport TEXT NOT NULL,
        address TEXT NOT NULL,
        format TEXT NOT NULL CHECK (format IN ('pdf', 'zpl')),
        dpi INTEGER NOT NULL,
        strip_zpl_setup INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE TABLE print_profiles (
        document_type TEXT PRIMARY KEY,
        printer_id TEXT NOT NULL REFERENCES printers (id) ON DELETE CASCADE,
        stock TEXT NOT NULL,
        copies INTEGER NOT NULL,
        auto_print INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE TABLE print_jobs (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        printer_id TEXT NOT NULL,
        document_type TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        file_id TEXT NOT NULL,
        copies INTEGER NOT NULL,
        stock TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'printing', 'printed', 'failed')),
        error TEXT,
        attempts INTEGER NOT NULL,
        bytes_sent INTEGER,
        reference TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        printed_at INTEGER
    );
    CREATE INDEX print_jobs_page ON print_jobs (env, created_at DESC, id DESC);
    CREATE INDEX print_jobs_status ON print_jobs (status, updated_at);
    "#,
    )],
    // 5: the desk's History, Today and End of day at a million labels. Search: every word of
    // search_text, and every word reversed behind `~`, so a search finds the start or the end of
    // a tracking number, order, reference or name through one index range (written in batches
    // by labels::catch_up_words; meta `label_words_up_to` is the last label rowid indexed).
    // Today: labels made per quarter hour (every time zone's day is whole quarter hours), kept by
    // a trigger. End of day: its count and oldest from the index.
    &[Step::Sqlite(
        r#"
    CREATE TABLE label_words (
        word TEXT NOT NULL,
        label_id TEXT NOT NULL,
        PRIMARY KEY (word, label_id)
    ) WITHOUT ROWID;
    CREATE TABLE label_quarters (
        env TEXT NOT NULL,
        quarter INTEGER NOT NULL,
        labels INTEGER NOT NULL,
        PRIMARY KEY (env, quarter)
    ) WITHOUT ROWID;
    CREATE TRIGGER label_quarters_insert AFTER INSERT ON labels BEGIN
        INSERT INTO label_quarters (env, quarter, labels) VALUES (new.env, new.created_at / 900000000, 1)
        ON CONFLICT (env, quarter) DO UPDATE SET labels = labels + 1;
    END;
    INSERT INTO label_quarters (env, quarter, labels) SELECT env, created_at / 900000000, COUNT(*) FROM labels GROUP BY 1, 2;
    DROP INDEX labels_manifestable;
    CREATE INDEX labels_manifestable ON labels (shipper_account_id, status, manifest_id, created_at);
    "#,
    )],
    // 6: Idempotency-Key of POST requests: the request's hash and, once made, the answer to give
    // again (NULL while the first request runs). Kept 24 hours.
    &[Step::Sqlite(
        r#"
    CREATE TABLE idempotency_keys (
        env TEXT NOT NULL,
        key TEXT NOT NULL,
        request_hash BLOB NOT NULL,
        http_status INTEGER,
        response TEXT,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (env, key)
    ) WITHOUT ROWID;
    CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at);
    "#,
    )],
    // 7: orders (the desk ships from them), the presets that ship them, and
    // batches of orders shipped in the background (a row per order: its state and result): one per order number and environment, the record as
    // JSON, and their words (order number, recipient, postal code, SKUs) written with each order,
    // so a search finds an order the moment it is imported.
    &[Step::Sqlite(
        r#"
    CREATE TABLE orders (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        order_number TEXT NOT NULL,
        status TEXT NOT NULL,
        record TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (env, order_number)
    );
    CREATE INDEX orders_page ON orders (env, created_at DESC, id DESC);
    CREATE INDEX orders_status_page ON orders (env, status, created_at DESC, id DESC);
    CREATE INDEX orders_found ON orders (id, env, status, created_at);
    CREATE TABLE order_words (
        word TEXT NOT NULL,
        order_id TEXT NOT NULL,
        PRIMARY KEY (word, order_id)
    ) WITHOUT ROWID;
    CREATE INDEX order_words_order ON order_words (order_id);
    CREATE TABLE order_labels (
        label_id TEXT PRIMARY KEY,
        order_id TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE import_mappings (
        name TEXT PRIMARY KEY,
        columns TEXT NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE TABLE presets (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        name TEXT NOT NULL,
        record TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (env, name)
    );
    CREATE TABLE ship_batches (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        created_at INTEGER NOT NULL
    );
    CREATE TABLE ship_batch_orders (
        batch_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        order_id TEXT NOT NULL,
        order_number TEXT NOT NULL,
        status TEXT NOT NULL,
        label_id TEXT,
        tracking_numbers TEXT NOT NULL,
        info TEXT,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (batch_id, position)
    ) WITHOUT ROWID;
    "#,
    )],
    // 8: the ship date, service and weight as columns, so a close-out takes the labels of its day
    // and End of day counts the later ones apart, by service with their weight, from the index
    // alone (backfilled from the record and request, which have always carried them); History
    // shows each label's last print job.
    &[
        Step::Sqlite(
            r#"
    ALTER TABLE labels ADD COLUMN ship_date TEXT NOT NULL DEFAULT '';
    ALTER TABLE labels ADD COLUMN service_type TEXT NOT NULL DEFAULT '';
    ALTER TABLE labels ADD COLUMN weight_kg REAL NOT NULL DEFAULT 0;
    UPDATE labels SET
        ship_date = COALESCE(json_extract(record, '$.ship_date'), json_extract(request, '$.ship_date'),
            date(created_at / 1000000, 'unixepoch')),
        service_type = COALESCE(json_extract(request, '$.service_type'), ''),
        weight_kg = COALESCE((SELECT TOTAL(json_extract(p.value, '$.weight.value') *
            CASE json_extract(p.value, '$.weight.unit') WHEN 'g' THEN 0.001 WHEN 'lb' THEN 0.45359237
                WHEN 'oz' THEN 0.028349523125 ELSE 1 END)
            FROM json_each(labels.request, '$.shipment.parcels') AS p), 0);
    DROP INDEX labels_manifestable;
    CREATE INDEX labels_manifestable ON labels
        (shipper_account_id, status, manifest_id, ship_date, service_type, weight_kg, created_at);
    CREATE INDEX print_jobs_owner ON print_jobs (owner_id, document_type, created_at);
    "#,
        ),
        // The shared database starts here: the tables of schema 8 as many desks share them
        // (the desk of printers, profiles and print jobs; leases of jobs; trigram indexes for
        // searching the shared history; no SQLite word index or quarter-hour counts).
        Step::Postgres(
            r#"
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE api_keys (
        env TEXT PRIMARY KEY CHECK (env IN ('live', 'sandbox')),
        key_hash BYTEA NOT NULL,
        key_sealed BYTEA NOT NULL,
        created_at BIGINT NOT NULL
    );
    CREATE TABLE shipper_accounts (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        slug TEXT NOT NULL,
        status TEXT NOT NULL,
        description TEXT NOT NULL,
        timezone TEXT NOT NULL,
        address TEXT,
        settings TEXT NOT NULL,
        credentials BYTEA NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
    );
    CREATE INDEX shipper_accounts_page ON shipper_accounts (env, created_at DESC, id DESC);
    CREATE TABLE tracking_counters (scope TEXT PRIMARY KEY, next_serial BIGINT NOT NULL);
    CREATE TABLE tracking_numbers (
        env TEXT NOT NULL,
        slug TEXT NOT NULL,
        number TEXT NOT NULL,
        label_id TEXT NOT NULL,
        PRIMARY KEY (env, slug, number)
    );
    CREATE INDEX tracking_numbers_label ON tracking_numbers (label_id);
    CREATE TABLE labels (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        shipper_account_id TEXT NOT NULL REFERENCES shipper_accounts (id),
        status TEXT NOT NULL,
        order_number TEXT,
        search_text TEXT NOT NULL,
        manifest_id TEXT,
        request TEXT NOT NULL,
        record TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        ship_date TEXT NOT NULL DEFAULT '',
        service_type TEXT NOT NULL DEFAULT '',
        weight_kg DOUBLE PRECISION NOT NULL DEFAULT 0,
        desk TEXT NOT NULL DEFAULT ''
    );
    CREATE UNIQUE INDEX labels_order_number ON labels (shipper_account_id, order_number)
        WHERE order_number IS NOT NULL AND status NOT IN ('cancelled', 'failed');
    CREATE INDEX labels_page ON labels (env, created_at DESC, id DESC);
    CREATE INDEX labels_account ON labels (shipper_account_id, status, created_at);
    CREATE INDEX labels_manifestable ON labels
        (shipper_account_id, status, manifest_id, ship_date, service_type, weight_kg, created_at);
    CREATE INDEX labels_search ON labels USING gin (search_text gin_trgm_ops);
    CREATE TABLE files (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        file_type TEXT NOT NULL,
        paper_size TEXT NOT NULL,
        bytes BYTEA NOT NULL,
        created_at BIGINT NOT NULL
    );
    CREATE INDEX files_owner ON files (owner_id);
    -- PDF and PNG streams are deflated already: PostgreSQL's own compression of them only costs.
    ALTER TABLE files ALTER COLUMN bytes SET STORAGE EXTERNAL;
    CREATE TABLE cancel_labels (
        id TEXT PRIMARY KEY, env TEXT NOT NULL, shipper_account_id TEXT, status TEXT NOT NULL,
        record TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL
    );
    CREATE INDEX cancel_labels_page ON cancel_labels (env, created_at DESC, id DESC);
    CREATE TABLE manifests (
        id TEXT PRIMARY KEY, env TEXT NOT NULL, shipper_account_id TEXT, status TEXT NOT NULL,
        record TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL
    );
    CREATE INDEX manifests_page ON manifests (env, created_at DESC, id DESC);
    CREATE TABLE bulk_downloads (
        id TEXT PRIMARY KEY, env TEXT NOT NULL, shipper_account_id TEXT, status TEXT NOT NULL,
        record TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL
    );
    CREATE INDEX bulk_downloads_page ON bulk_downloads (env, created_at DESC, id DESC);
    CREATE TABLE rates (
        id TEXT PRIMARY KEY, env TEXT NOT NULL, shipper_account_id TEXT, status TEXT NOT NULL,
        record TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL
    );
    CREATE INDEX rates_page ON rates (env, created_at DESC, id DESC);
    CREATE TABLE address_validations (
        id TEXT PRIMARY KEY, env TEXT NOT NULL, shipper_account_id TEXT, status TEXT NOT NULL,
        record TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL
    );
    CREATE INDEX address_validations_page ON address_validations (env, created_at DESC, id DESC);
    -- Async jobs: claimed with FOR UPDATE SKIP LOCKED under a lease, so a job of a desk that died
    -- is taken over once the lease ends.
    CREATE TABLE jobs (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        env TEXT NOT NULL,
        kind TEXT NOT NULL,
        lane TEXT NOT NULL,
        request TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('queued', 'done')),
        accepted_at BIGINT NOT NULL,
        finished_at BIGINT,
        leased_by TEXT,
        leased_until BIGINT
    );
    CREATE INDEX jobs_queued ON jobs (state, seq);
    CREATE TABLE webhook_settings (
        env TEXT PRIMARY KEY CHECK (env IN ('live', 'sandbox')),
        url TEXT NOT NULL,
        enabled BOOLEAN NOT NULL,
        updated_at BIGINT NOT NULL
    );
    CREATE TABLE webhook_deliveries (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        event TEXT NOT NULL,
        record_id TEXT NOT NULL,
        url TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts BIGINT NOT NULL,
        round_failures BIGINT NOT NULL,
        next_attempt_at BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
    );
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
    CREATE INDEX webhook_deliveries_page ON webhook_deliveries (env, created_at DESC, id DESC);
    CREATE TABLE webhook_attempts (
        delivery_id TEXT NOT NULL,
        attempt BIGINT NOT NULL,
        at BIGINT NOT NULL,
        url TEXT NOT NULL,
        status_code BIGINT,
        error TEXT,
        duration_us BIGINT NOT NULL,
        PRIMARY KEY (delivery_id, attempt)
    );
    -- Printers and profiles belong to a desk; print jobs are shared, each going to its printer's desk.
    CREATE TABLE printers (
        id TEXT PRIMARY KEY,
        desk TEXT NOT NULL,
        name TEXT NOT NULL,
        transport TEXT NOT NULL,
        address TEXT NOT NULL,
        format TEXT NOT NULL CHECK (format IN ('pdf', 'zpl')),
        dpi BIGINT NOT NULL,
        strip_zpl_setup BOOLEAN NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
    );
    CREATE TABLE print_profiles (
        desk TEXT NOT NULL,
        document_type TEXT NOT NULL,
        printer_id TEXT NOT NULL REFERENCES printers (id) ON DELETE CASCADE,
        stock TEXT NOT NULL,
        copies BIGINT NOT NULL,
        auto_print BOOLEAN NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (desk, document_type)
    );
    CREATE TABLE print_jobs (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        desk TEXT NOT NULL,
        printer_id TEXT NOT NULL,
        document_type TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        file_id TEXT NOT NULL,
        copies BIGINT NOT NULL,
        stock TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'printing', 'printed', 'failed')),
        error TEXT,
        attempts BIGINT NOT NULL,
        bytes_sent BIGINT,
        reference TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        printed_at BIGINT
    );
    CREATE INDEX print_jobs_page ON print_jobs (env, created_at DESC, id DESC);
    CREATE INDEX print_jobs_status ON print_jobs (desk, status, updated_at);
    CREATE INDEX print_jobs_owner ON print_jobs (owner_id, document_type, created_at);
    -- No per-quarter-hour counts kept by a trigger here (SQLite's label_quarters): every label of
    -- every desk would update the same counter row and wait for the others' commits. Today's
    -- counts read the labels' (env, created_at) index instead.
    CREATE TABLE idempotency_keys (
        env TEXT NOT NULL,
        key TEXT NOT NULL,
        request_hash BYTEA NOT NULL,
        http_status BIGINT,
        response TEXT,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (env, key)
    );
    CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at);
    CREATE TABLE orders (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        order_number TEXT NOT NULL,
        status TEXT NOT NULL,
        record TEXT NOT NULL,
        search_text TEXT NOT NULL DEFAULT '',
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        UNIQUE (env, order_number)
    );
    CREATE INDEX orders_page ON orders (env, created_at DESC, id DESC);
    CREATE INDEX orders_status_page ON orders (env, status, created_at DESC, id DESC);
    CREATE INDEX orders_search ON orders USING gin (search_text gin_trgm_ops);
    CREATE TABLE order_labels (
        label_id TEXT PRIMARY KEY,
        order_id TEXT NOT NULL
    );
    CREATE TABLE import_mappings (
        name TEXT PRIMARY KEY,
        columns TEXT NOT NULL,
        updated_at BIGINT NOT NULL
    );
    CREATE TABLE presets (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        name TEXT NOT NULL,
        record TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        UNIQUE (env, name)
    );
    CREATE TABLE ship_batches (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        created_at BIGINT NOT NULL
    );
    CREATE TABLE ship_batch_orders (
        batch_id TEXT NOT NULL,
        position BIGINT NOT NULL,
        order_id TEXT NOT NULL,
        order_number TEXT NOT NULL,
        status TEXT NOT NULL,
        label_id TEXT,
        tracking_numbers TEXT NOT NULL,
        info TEXT,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (batch_id, position)
    );
    "#,
        ),
    ],
    // 9: a label found by its tracking number (a scanned one, `tracking_numbers=`): the key leads
    // with the carrier, so a lookup by number alone read every number of the environment.
    &[Step::Both(
        r#"
    CREATE INDEX tracking_numbers_number ON tracking_numbers (number);
    "#,
    )],
    // 10: the carrier link: an account's sealed connection secrets, and the transmission of each
    // manifest's data file to its carrier with every attempt.
    &[Step::Both(
        r#"
    ALTER TABLE shipper_accounts ADD COLUMN secrets BLOB;
    CREATE TABLE transmissions (
        manifest_id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        account_id TEXT NOT NULL,
        file_id TEXT NOT NULL,
        file_name TEXT NOT NULL UNIQUE,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        round_failures INTEGER NOT NULL,
        last_error TEXT,
        next_attempt_at INTEGER,
        give_up_at INTEGER NOT NULL,
        lease_until INTEGER,
        leased_by TEXT,
        sent_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE INDEX transmissions_due ON transmissions (next_attempt_at);
    CREATE INDEX transmissions_account ON transmissions (account_id, file_name);
    CREATE TABLE transmission_attempts (
        manifest_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        at INTEGER NOT NULL,
        transport TEXT NOT NULL,
        error TEXT,
        duration_us INTEGER NOT NULL,
        PRIMARY KEY (manifest_id, attempt)
    );
    "#,
    )],
    // 11: what an upstream label service calls a label or manifest this desk keeps (an account
    // whose `connection` is upstream): its cancel and close-out name it there.
    &[Step::Both(
        r#"
    CREATE TABLE upstream_refs (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        upstream_id TEXT NOT NULL
    );
    "#,
    )],
    // 12: the people at the desks (shared by every desk of a shared database) and the audit log
    // of who did what, append-only. The log is kept in time order (its key, SQLite without a
    // rowid): each label writes an entry, and one tree less is a write less.
    &[Step::Both(
        r#"
    CREATE TABLE operators (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        code TEXT NOT NULL UNIQUE,
        pin_hash TEXT,
        role TEXT NOT NULL,
        active BOOLEAN NOT NULL,
        language TEXT,
        failed_pins INTEGER NOT NULL,
        locked_until INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE TABLE audit_log (
        at INTEGER NOT NULL,
        id TEXT NOT NULL,
        desk TEXT NOT NULL,
        env TEXT NOT NULL,
        actor TEXT NOT NULL,
        operator_id TEXT,
        action TEXT NOT NULL,
        object_id TEXT,
        result TEXT NOT NULL,
        detail TEXT NOT NULL,
        PRIMARY KEY (at, id)
    ) WITHOUT ROWID;
    CREATE INDEX audit_log_object ON audit_log (object_id);
    "#,
    )],
    // 13: named integration keys (besides each environment's own key), with their scopes; a
    // revoked key stays listed. Who sent each print job, and whose request each async job runs.
    &[Step::Both(
        r#"
    CREATE TABLE integration_keys (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        env TEXT NOT NULL,
        scopes TEXT NOT NULL,
        prefix TEXT NOT NULL,
        key_hash BLOB NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        created_by TEXT NOT NULL,
        last_used_at INTEGER,
        revoked_at INTEGER
    );
    ALTER TABLE print_jobs ADD COLUMN operator TEXT;
    ALTER TABLE jobs ADD COLUMN caller TEXT;
    "#,
    )],
    // 14: every scan at an order's packing list (issue 40), kept: the list is the scans since the
    // order's packing last started again.
    &[Step::Both(
        r#"
    CREATE TABLE pack_scans (
        order_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        env TEXT NOT NULL,
        at INTEGER NOT NULL,
        desk TEXT NOT NULL,
        operator TEXT,
        code TEXT,
        line INTEGER,
        event TEXT NOT NULL,
        PRIMARY KEY (order_id, seq)
    );
    "#,
    )],
    // 15: returned parcels scanned in at the Returns screen (issue 40), each against its order;
    // the record holds its items.
    &[Step::Both(
        r#"
    CREATE TABLE returns (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        order_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        record TEXT NOT NULL
    );
    CREATE INDEX returns_env_created ON returns (env, created_at);
    CREATE INDEX returns_order ON returns (order_id);
    "#,
    )],
    // 16: reports (issue 41). A closed day's figures, per account, service, operator, desk and
    // currency, made once from its labels and kept (weights in grams, charges in thousandths);
    // a label voided later forgets its day, made again when next asked. Labels by ship date,
    // and print jobs that failed, found by an index each.
    &[Step::Both(
        r#"
    CREATE TABLE report_days (
        env TEXT NOT NULL,
        day TEXT NOT NULL,
        account_id TEXT NOT NULL,
        service_type TEXT NOT NULL,
        operator TEXT NOT NULL,
        desk TEXT NOT NULL,
        currency TEXT NOT NULL,
        labels INTEGER NOT NULL,
        voided INTEGER NOT NULL,
        parcels INTEGER NOT NULL,
        weight_g INTEGER NOT NULL,
        items INTEGER NOT NULL,
        charge_milli INTEGER NOT NULL,
        print_failures INTEGER NOT NULL,
        first_at INTEGER NOT NULL,
        last_at INTEGER NOT NULL,
        PRIMARY KEY (env, day, account_id, service_type, operator, desk, currency)
    );
    CREATE TABLE report_days_made (
        env TEXT NOT NULL,
        day TEXT NOT NULL,
        made_at INTEGER NOT NULL,
        PRIMARY KEY (env, day)
    );
    CREATE INDEX labels_ship_day ON labels (env, ship_date);
    CREATE INDEX print_jobs_failed ON print_jobs (owner_id) WHERE status = 'failed';
    "#,
    )],
    // 17: a box closed at the packing list keeps its weight from the desk scale (issue 40).
    &[Step::Both("ALTER TABLE pack_scans ADD COLUMN box_weight TEXT;")],
    // 18: the runs many files share (font objects), kept once by their SHA-256 (issue 42); a
    // file lists where each goes back into its own bytes.
    &[Step::Both(
        r#"
    CREATE TABLE file_parts (hash BLOB PRIMARY KEY, bytes BLOB NOT NULL) WITHOUT ROWID;
    ALTER TABLE files ADD COLUMN parts TEXT;
    "#,
    )],
    // 19: from here on a label's `request` and `record` may be deflated BLOBs on SQLite
    // (`stored_json.rs`): a step that reads them must do it in Rust, not with json_extract. A build
    // before this one could not read them: the version alone makes it refuse the file (a newer
    // schema), before anything is read or written. PostgreSQL keeps the text: not its step.
    &[Step::Sqlite(
        "-- a label's request and record may be deflated (stored_json.rs)",
    )],
    // 20: the newest-first indexes of the tables a label writes to, ascending on SQLite (issue
    // 42). It reads an index backwards as fast, but a descending one takes each new row at its
    // left end, where a full page is split in half (at the right end it is left full and a new
    // one begun): half-empty pages, and more of them written a label. PostgreSQL keeps its own.
    &[Step::Sqlite(
        r#"
    DROP INDEX labels_page;
    CREATE INDEX labels_page ON labels (env, created_at, id);
    DROP INDEX print_jobs_page;
    CREATE INDEX print_jobs_page ON print_jobs (env, created_at, id);
    DROP INDEX webhook_deliveries_page;
    CREATE INDEX webhook_deliveries_page ON webhook_deliveries (env, created_at, id);
    "#,
    )],
    // 21: three b-trees fewer in every label's commit (issue 42). No statement reads tracking
    // numbers by label (a label's numbers are in its record): `tracking_numbers_label` goes on
    // both. On SQLite the key leads with the number, which a scanned number is looked up by, so
    // the number's own index goes too (the key still makes a second issue impossible), and a
    // print job's row (a few hundred bytes) is kept in its id's b-tree (WITHOUT ROWID: the id's
    // own index goes). The tables are copied once, in their new keys' order (a start of 14 s for
    // a million of each, 2026-12-02). PostgreSQL keeps its keys and indexes.
    &[
        Step::Both("DROP INDEX tracking_numbers_label;"),
        Step::Sqlite(
            r#"
    CREATE TABLE tracking_numbers_by_number (
        env TEXT NOT NULL,
        slug TEXT NOT NULL,
        number TEXT NOT NULL,
        label_id TEXT NOT NULL,
        PRIMARY KEY (number, slug, env)
    ) WITHOUT ROWID;
    INSERT INTO tracking_numbers_by_number (env, slug, number, label_id)
        SELECT env, slug, number, label_id FROM tracking_numbers ORDER BY number, slug, env;
    DROP TABLE tracking_numbers;
    ALTER TABLE tracking_numbers_by_number RENAME TO tracking_numbers;
    CREATE TABLE print_jobs_by_id (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        printer_id TEXT NOT NULL,
        document_type TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        file_id TEXT NOT NULL,
        copies INTEGER NOT NULL,
        stock TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'printing', 'printed', 'failed')),
        error TEXT,
        attempts INTEGER NOT NULL,
        bytes_sent INTEGER,
        reference TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        printed_at INTEGER,
        operator TEXT
    ) WITHOUT ROWID;
    INSERT INTO print_jobs_by_id SELECT id, env, printer_id, document_type, owner_id, file_id, copies,
        stock, status, error, attempts, bytes_sent, reference, created_at, updated_at, printed_at, operator
        FROM print_jobs ORDER BY id;
    DROP TABLE print_jobs;
    ALTER TABLE print_jobs_by_id RENAME TO print_jobs;
    CREATE INDEX print_jobs_page ON print_jobs (env, created_at, id);
    CREATE INDEX print_jobs_status ON print_jobs (status, updated_at);
    CREATE INDEX print_jobs_owner ON print_jobs (owner_id, document_type, created_at);
    CREATE INDEX print_jobs_failed ON print_jobs (owner_id) WHERE status = 'failed';
    "#,
        ),
    ],
];

/// The schema version this build writes.
pub const LATEST: usize = MIGRATIONS.len();

/// The schema version of an open database (0: new).
pub fn version(conn: &Connection) -> crate::Result<usize> {
    Ok(conn
        .pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0))?
        .max(0) as usize)
}

/// Each version's script for `dialect`, with the version it brings the schema to (versions with
/// nothing for that database are left out).
pub fn scripts(dialect: Dialect) -> impl Iterator<Item = (usize, String)> {
    MIGRATIONS.iter().enumerate().filter_map(move |(i, steps)| {
        let script: String = steps
            .iter()
            .filter_map(|step| match (step, dialect) {
                (Step::Both(sql), Dialect::Sqlite) | (Step::Sqlite(sql), Dialect::Sqlite) => Some(sql.to_string()),
                (Step::Both(sql), Dialect::Postgres) => Some(as_postgres(sql)),
                (Step::Postgres(sql), Dialect::Postgres) => Some(sql.to_string()),
                _ => None,
            })
            .collect();
        (!script.is_empty()).then_some((i + 1, script))
    })
}

/// A shared step as PostgreSQL takes it (see the module's comment). SQLite's rowid columns
/// (`AUTOINCREMENT`) have no such spelling there: a step that needs one is two steps, one per
/// database.
fn as_postgres(sql: &str) -> String {
    assert!(
        !sql.contains("AUTOINCREMENT"),
        "a Both step cannot use AUTOINCREMENT: write it as a Sqlite and a Postgres step"
    );
    let mut out = String::with_capacity(sql.len());
    let mut word = String::new();
    for c in sql.chars().map(Some).chain([None]) {
        match c {
            Some(c) if c.is_ascii_alphanumeric() || c == '_' => word.push(c),
            _ => {
                out.push_str(match word.as_str() {
                    "BLOB" => "BYTEA",
                    "INTEGER" => "BIGINT",
                    other => other,
                });
                word.clear();
                out.extend(c);
            }
        }
    }
    out.replace("WITHOUT ROWID", "")
}

pub fn migrate(conn: &mut Connection) -> crate::Result<()> {
    let done = version(conn)?;
    for (to, script) in scripts(Dialect::Sqlite).filter(|(to, _)| *to > done) {
        let tx = conn.transaction()?;
        tx.execute_batch(&script)?;
        tx.pragma_update(None, "user_version", to as i64)?;
        tx.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database of the release before ship dates (schema 7) with labels made then: the upgrade
    /// gives each its ship date, service and weight from what it always stored.
    #[test]
    fn labels_made_before_the_ship_date_column_get_theirs_from_their_record() {
        let mut conn = Connection::open_in_memory().unwrap();
        // The labels' account rows are beside the point here.
        conn.pragma_update(None, "foreign_keys", false).unwrap();
        for (to, sql) in scripts(Dialect::Sqlite).take(7) {
            conn.execute_batch(&sql).unwrap();
            conn.pragma_update(None, "user_version", to as i64).unwrap();
        }
        let insert = "INSERT INTO labels (id, env, shipper_account_id, status, order_number, search_text, manifest_id, request, record, created_at, updated_at)
                      VALUES (?1, 'sandbox', 'a', 'created', NULL, '', NULL, ?2, ?3, 1795000000000000, 1795000000000000)";
        let request = r#"{"service_type": "yodel_std", "shipment": {"parcels": [
            {"weight": {"value": 1.5, "unit": "kg"}}, {"weight": {"value": 500, "unit": "g"}}, {"weight": {"value": 2, "unit": "lb"}}]}}"#;
        conn.execute(insert, ["synced", request, r#"{"ship_date": "2026-11-25"}"#])
            .unwrap();
        // A label whose record and request name no ship date: the day it was made (UTC).
        conn.execute(insert, ["async", request, r#"{"ship_date": null}"#])
            .unwrap();
        migrate(&mut conn).unwrap();
        assert_eq!(version(&conn).unwrap(), LATEST);
        let read = |id: &str| {
            conn.query_row(
                "SELECT ship_date, service_type, weight_kg FROM labels WHERE id = ?1",
                [id],
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, f64>(2)?)),
            )
            .unwrap()
        };
        let (date, service, kg) = read("synced");
        assert_eq!((date.as_str(), service.as_str()), ("2026-11-25", "yodel_std"));
        assert!((kg - (1.5 + 0.5 + 2.0 * 0.45359237)).abs() < 1e-9, "{kg}");
        assert_eq!(read("async").0, "2026-11-18", "the day it was made (1795000000 s)");
    }

    /// A database of schema 20 with tracking numbers issued: after the upgrade each is still
    /// there, found by its number through the key, and cannot be issued a second time.
    #[test]
    fn tracking_numbers_issued_before_the_number_key_keep_their_labels_and_stay_unique() {
        let mut conn = Connection::open_in_memory().unwrap();
        for (to, sql) in scripts(Dialect::Sqlite).take(20) {
            conn.execute_batch(&sql).unwrap();
            conn.pragma_update(None, "user_version", to as i64).unwrap();
        }
        let issue = "INSERT INTO tracking_numbers (env, slug, number, label_id) VALUES (?1, ?2, ?3, ?4)";
        conn.execute(issue, ["sandbox", "yodel", "JD1", "label-1"]).unwrap();
        conn.execute(issue, ["live", "yodel", "JD1", "label-2"]).unwrap();
        migrate(&mut conn).unwrap();
        assert_eq!(version(&conn).unwrap(), LATEST);
        let label: String = conn
            .query_row(
                "SELECT label_id FROM tracking_numbers WHERE +env = 'live' AND number = 'JD1'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(label, "label-2");
        let again = conn.execute(issue, ["sandbox", "yodel", "JD1", "label-3"]);
        assert!(again.is_err(), "a number issued twice: {again:?}");
        let indexes: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'tracking_numbers'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(indexes, 0, "the key alone");
    }

    /// A database of schema 20 with a print job: after the upgrade (the jobs kept in their id's
    /// b-tree) the job is there whole, with the indexes the queue and History read.
    #[test]
    fn print_jobs_made_before_the_id_keyed_table_are_kept_whole() {
        let mut conn = Connection::open_in_memory().unwrap();
        for (to, sql) in scripts(Dialect::Sqlite).take(20) {
            conn.execute_batch(&sql).unwrap();
            conn.pragma_update(None, "user_version", to as i64).unwrap();
        }
        let job = "'job-1', 'sandbox', 'printer-1', 'label', 'label-1', 'file-1', 2, '4x6', 'failed', \
                   'the printer is off', 3, NULL, NULL, 10, 20, NULL, 'op-1'";
        conn.execute_batch(&format!("INSERT INTO print_jobs VALUES ({job})"))
            .unwrap();
        migrate(&mut conn).unwrap();
        let same: i64 = conn
            .query_row(&format!("SELECT COUNT(*) FROM print_jobs WHERE (id, env, printer_id, document_type, owner_id, file_id, copies, stock, status, error, attempts, bytes_sent, reference, created_at, updated_at, printed_at, operator) IS ({job})"), [], |r| r.get(0))
            .unwrap();
        assert_eq!(same, 1, "the job as it was");
        let indexes: Vec<String> = conn
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'print_jobs' ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            indexes,
            [
                "print_jobs_failed",
                "print_jobs_owner",
                "print_jobs_page",
                "print_jobs_status"
            ],
            "no index of the id's own"
        );
    }

    #[test]
    fn a_shared_step_reaches_postgresql_with_its_type_names() {
        assert_eq!(
            as_postgres("CREATE TABLE t (a INTEGER NOT NULL, b BLOB, c TEXT, integers_kept INTEGER) WITHOUT ROWID;"),
            "CREATE TABLE t (a BIGINT NOT NULL, b BYTEA, c TEXT, integers_kept BIGINT) ;"
        );
    }

    /// Both databases reach the latest version (19 and 20 are SQLite's alone: deflated labels,
    /// ascending page indexes; 21 has a step for each).
    #[test]
    fn both_databases_reach_the_latest_version() {
        assert_eq!(scripts(Dialect::Sqlite).last().map(|(to, _)| to), Some(LATEST));
        assert_eq!(scripts(Dialect::Postgres).last().map(|(to, _)| to), Some(LATEST));
    }
}
