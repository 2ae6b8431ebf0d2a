#!/usr/bin/env bash
# PostgreSQL clusters for the tests (issue 16, 39): Debian's package, `initdb` in a temporary
# folder as the `postgres` user (PostgreSQL refuses to run as root), free ports on 127.0.0.1,
# trust authentication (loopback only, the folder is removed at stop). Each serves TLS as a
# warehouse's server would: a certificate for 127.0.0.1 only (so `localhost` is a host it does not
# name) signed by a CA of the run's own.
#   bash tests/postgres.sh start   installs the package when missing, starts one cluster and prints
#                                  PACKDESK_TEST_POSTGRES=postgres://…, PACKDESK_TEST_POSTGRES_DIR=…
#                                  and PACKDESK_TEST_POSTGRES_CA=… (the CA's certificate)
#   bash tests/postgres.sh pair    a primary and its streaming standby (`pg_basebackup -R`; a commit
#                                  waits for the standby, `synchronous_standby_names`), durable; prints
#                                  PACKDESK_TEST_PAIR_URL=postgres://…,…?target_session_attrs=read-write,
#                                  PACKDESK_TEST_PAIR_DIR=…, PACKDESK_TEST_PAIR_PRIMARY=<port> and _STANDBY=
#   bash tests/postgres.sh failover DIR   stops the pair's primary at once (`-m immediate`, as a
#                                  crash) and promotes the standby
#   bash tests/postgres.sh stop    stops the cluster(s) of PACKDESK_TEST_POSTGRES_DIR (or of the
#                                  folder given) and removes them
# PACKDESK_TEST_POSTGRES_DURABLE=1 keeps PostgreSQL's durable commits (fsync), for benchmarks.
# Tests create a database of their own in it for each case.
set -euo pipefail
# A failure inside $(…) stops the script too.
shopt -s inherit_errexit
source "$(dirname "$0")/../.ci/system-packages"
bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
owner=postgres
[ "$(id -u)" = 0 ] || owner="$(id -un)"
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u "$owner" -- "$@"; else "$@"; fi; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# A new folder with the run's CA and the server certificate; prints the folder.
new_folder() {
  [ -n "$(bin)" ] || apt_install postgresql >&2
  command -v openssl >/dev/null || apt_install openssl >&2
  local dir
  dir="$(mktemp -d /tmp/packdesk-pg.XXXXXX)"
  chown "$owner" "$dir"
  mkdir "$dir/tls"
  ( cd "$dir/tls"
    # openssl's progress goes to a log, shown when it fails.
    quiet() { "$@" 2>>openssl.log || { cat openssl.log >&2; return 1; }; }
    quiet openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj "/CN=Packdesk test CA" \
      -keyout ca.key -out ca.crt
    quiet openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=127.0.0.1" \
      -keyout server.key -out server.csr
    printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > server.ext
    quiet openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 -extfile server.ext \
      -out server.crt
    chmod 600 server.key ca.key
    chown "$owner" server.key server.crt )
  echo "$dir"
}

# Starts the cluster in $1/$2 on port $3 with more settings $4.
run_cluster() {
  local dir="$1" name="$2" port="$3" more="$4"
  local tls="-c ssl=on -c ssl_cert_file=$dir/tls/server.crt -c ssl_key_file=$dir/tls/server.key"
  as_owner "$(bin)/pg_ctl" -D "$dir/$name" -l "$dir/$name.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 $tls $more" \
    start > /dev/null || { cat "$dir/$name.log" >&2; exit 1; }
}

init_cluster() {
  local dir="$1" name="$2"
  as_owner "$(bin)/initdb" -D "$dir/$name" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 \
    > "$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
}

case "${1:-}" in
  start)
    dir="$(new_folder)"
    port="$(free_port)"
    init_cluster "$dir" data
    # Tests make hundreds of short-lived databases: no fsync (the cluster is thrown away).
    fast="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    [ -z "${PACKDESK_TEST_POSTGRES_DURABLE:-}" ] || fast=""
    # More settings for a measurement (e.g. "-c shared_preload_libraries=pg_stat_statements").
    run_cluster "$dir" data "$port" "$fast ${PACKDESK_TEST_POSTGRES_SETTINGS:-}"
    echo "PACKDESK_TEST_POSTGRES=postgres://postgres@127.0.0.1:$port/postgres"
    echo "PACKDESK_TEST_POSTGRES_DIR=$dir"
    echo "PACKDESK_TEST_POSTGRES_CA=$dir/tls/ca.crt"
    ;;
  pair)
    dir="$(new_folder)"
    primary="$(free_port)"
    standby="$(free_port)"
    # Two asks may give the same free port.
    while [ "$standby" = "$primary" ]; do standby="$(free_port)"; done
    init_cluster "$dir" data
    # Durable, and a commit answers only once the standby has it: what was answered survives
    # the primary's loss.
    run_cluster "$dir" data "$primary" "-c synchronous_standby_names=* -c wal_level=replica"
    as_owner "$(bin)/pg_basebackup" -h 127.0.0.1 -p "$primary" -U postgres -D "$dir/standby" -R -X stream \
      > "$dir/basebackup.log" 2>&1 || { cat "$dir/basebackup.log" >&2; exit 1; }
    # Promoted, it runs alone: its commits wait for no standby.
    run_cluster "$dir" standby "$standby" ""
    # The standby streams before the pair is handed over (a commit would wait for it otherwise).
    for _ in $(seq 100); do
      streaming="$(as_owner "$(bin)/psql" -h 127.0.0.1 -p "$primary" -U postgres -Atc \
        "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'" postgres)"
      [ "$streaming" = 1 ] && break
      sleep 0.1
    done
    # Without it every commit of the primary would wait for ever: fail here, saying why.
    [ "$streaming" = 1 ] || { echo "the standby does not stream:" >&2; cat "$dir/standby.log" >&2; exit 1; }
    echo "PACKDESK_TEST_PAIR_URL=postgres://postgres@127.0.0.1:$primary,127.0.0.1:$standby/postgres?target_session_attrs=read-write"
    echo "PACKDESK_TEST_PAIR_DIR=$dir"
    echo "PACKDESK_TEST_PAIR_PRIMARY=$primary"
    echo "PACKDESK_TEST_PAIR_STANDBY=$standby"
    ;;
  failover)
    dir="${2:?the folder of the pair}"
    as_owner "$(bin)/pg_ctl" -D "$dir/data" -m immediate stop > /dev/null
    as_owner "$(bin)/pg_ctl" -D "$dir/standby" -w promote > /dev/null
    ;;
  stop)
    dir="${2:-${PACKDESK_TEST_POSTGRES_DIR:?no cluster to stop}}"
    [ -d "$dir" ] || exit 0
    owner="$(stat -c %U "$dir")"
    for name in data standby; do
      [ -d "$dir/$name" ] && as_owner "$(bin)/pg_ctl" -D "$dir/$name" -m fast stop > /dev/null 2>&1 || true
    done
    rm -rf "$dir"
    ;;
  *) echo "usage: bash tests/postgres.sh start|pair|failover DIR|stop [DIR]" >&2; exit 2 ;;
esac
