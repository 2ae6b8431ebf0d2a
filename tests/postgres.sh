#!/usr/bin/env bash
# One PostgreSQL cluster for a whole test run (issue 16): Debian's package, `initdb` in a
# temporary folder as the `postgres` user (PostgreSQL refuses to run as root), a free port on
# 127.0.0.1, trust authentication (loopback only, the folder is removed at stop).
#   bash tests/postgres.sh start   installs the package when missing, starts the cluster and prints
#                                  PACKDESK_TEST_POSTGRES=postgres://…, PACKDESK_TEST_POSTGRES_DIR=…
#                                  and PACKDESK_TEST_POSTGRES_CA=… (the cluster serves TLS, `ssl = on`,
#                                  with a certificate for 127.0.0.1 signed by a CA of its own)
#   bash tests/postgres.sh stop    stops the cluster of PACKDESK_TEST_POSTGRES_DIR and removes it
# PACKDESK_TEST_POSTGRES_DURABLE=1 keeps PostgreSQL's durable commits (fsync), for benchmarks.
# Tests create a database of their own in it for each case.
set -euo pipefail
source "$(dirname "$0")/../.ci/system-packages"
bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
case "${1:-}" in
  start)
    [ -n "$(bin)" ] || apt_install postgresql >&2
    command -v openssl >/dev/null || apt_install openssl >&2
    pg="$(bin)"
    owner=postgres
    [ "$(id -u)" = 0 ] || owner="$(id -un)"
    as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u "$owner" -- "$@"; else "$@"; fi; }
    dir="$(mktemp -d /tmp/packdesk-pg.XXXXXX)"
    chown "$owner" "$dir"
    port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    as_owner "$pg/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 > "$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    # TLS as a warehouse's server would have it: a CA of the run's own signs the server's
    # certificate, which names 127.0.0.1 only (so `localhost` is a host it does not name).
    mkdir "$dir/tls"
    ( cd "$dir/tls"
      openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj "/CN=Packdesk test CA" \
        -keyout ca.key -out ca.crt 2>/dev/null
      openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=127.0.0.1" \
        -keyout server.key -out server.csr 2>/dev/null
      printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > server.ext
      openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 -extfile server.ext \
        -out server.crt 2>/dev/null
      chmod 600 server.key ca.key
      chown "$owner" server.key server.crt )
    tls="-c ssl=on -c ssl_cert_file=$dir/tls/server.crt -c ssl_key_file=$dir/tls/server.key"
    # Tests make hundreds of short-lived databases: no fsync (the cluster is thrown away).
    fast="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    [ -z "${PACKDESK_TEST_POSTGRES_DURABLE:-}" ] || fast=""
    as_owner "$pg/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 $tls $fast" \
      start > /dev/null || { cat "$dir/server.log" >&2; exit 1; }
    echo "PACKDESK_TEST_POSTGRES=postgres://postgres@127.0.0.1:$port/postgres"
    echo "PACKDESK_TEST_POSTGRES_DIR=$dir"
    echo "PACKDESK_TEST_POSTGRES_CA=$dir/tls/ca.crt"
    ;;
  stop)
    dir="${PACKDESK_TEST_POSTGRES_DIR:?no cluster to stop}"
    owner="$(stat -c %U "$dir")"
    if [ "$(id -u)" = 0 ]; then runuser -u "$owner" -- "$(bin)/pg_ctl" -D "$dir/data" -m fast stop > /dev/null || true
    else "$(bin)/pg_ctl" -D "$dir/data" -m fast stop > /dev/null || true; fi
    rm -rf "$dir"
    ;;
  *) echo "usage: bash tests/postgres.sh start|stop" >&2; exit 2 ;;
esac
