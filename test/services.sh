#!/usr/bin/env bash
# Real PostgreSQL 15 (with pgvector) and Redis 7 for tests, on loopback only, and the
# Chromium the browser test of /docs uses.
#
#   test/services.sh up       install what is missing, start both, wait until they answer
#   test/services.sh env      print the export lines:  eval "$(test/services.sh env)"
#   test/services.sh status   say what runs (exit 0 only when both run)
#   test/services.sh down     stop both (fine when they are not running)
#
# Environment:
#   ENGRAM_SERVICES_DIR         state (data, sockets, logs, pidfile, env file);
#                               default ${TMPDIR:-/tmp}/engram-services
#   ENGRAM_SERVICES_PG_PORT     default 55432
#   ENGRAM_SERVICES_REDIS_PORT  default 56379
#
# Installing packages and building pgvector need root (apt-get, make install). When run
# as root, PostgreSQL runs as user postgres, so the state directory belongs to postgres.
# Follows ../shared/CI-SERVICES.md; nothing outside this repository is needed.
set -euo pipefail

PG_MAJOR=15
PGBIN=/usr/lib/postgresql/$PG_MAJOR/bin
PG_CONFIG=$PGBIN/pg_config
DIR=${ENGRAM_SERVICES_DIR:-${TMPDIR:-/tmp}/engram-services}
PG_PORT=${ENGRAM_SERVICES_PG_PORT:-55432}
REDIS_PORT=${ENGRAM_SERVICES_REDIS_PORT:-56379}
HOST=127.0.0.1
DB=engram_test
PGDATA=$DIR/data
PGLOG=$DIR/postgres.log
REDIS_PID=$DIR/redis.pid
REDIS_LOG=$DIR/redis.log
ENV_FILE=$DIR/env
# chromium: the browser test of /docs (test/e2e/docs_test.go) renders the embedded API reference;
# curl: the README examples are run with it (test/e2e/readme_test.go);
# prometheus: only for its promtool, which checks deploy/prometheus/alerts.yml (test/e2e/deploy_test.go).
PACKAGES=(postgresql "postgresql-server-dev-$PG_MAJOR" redis-server chromium curl prometheus)

BUILD_TMP=
cleanup() { if [ -n "$BUILD_TMP" ]; then rm -rf "$BUILD_TMP"; fi; }
trap cleanup EXIT

log() { printf 'services: %s\n' "$*" >&2; }
die() { printf 'services: error: %s\n' "$*" >&2; exit 1; }

is_root() { [ "$(id -u)" -eq 0 ]; }

# as_pg runs a command as the user that owns the PostgreSQL cluster.
as_pg() {
	if is_root; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

psql_() { PGOPTIONS="-c client_min_messages=warning" "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$HOST" -p "$PG_PORT" -U postgres "$@"; }

# ---------------------------------------------------------------- packages

missing_packages() {
	local p
	for p in "${PACKAGES[@]}"; do
		[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || echo "$p"
	done
}

# apt_lists_usable: the machine's package lists exist and know every package we want.
apt_lists_usable() {
	local p
	compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null || return 1
	for p in "$@"; do
		[[ "$(apt-cache policy "$p" 2>/dev/null)" == *"Candidate: "[!\(]* ]] || return 1
	done
}

install_packages() {
	local missing
	mapfile -t missing < <(missing_packages)
	[ "${#missing[@]}" -eq 0 ] && return 0
	is_root || die "missing packages ${missing[*]}; run as root to install them"
	local apt=(apt-get -o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
	local install=("${apt[@]}" install -y -q --no-install-recommends "${missing[@]}")
	log "installing ${missing[*]}"
	if ! apt_lists_usable "${missing[@]}"; then
		log "apt-get update (package lists missing or stale)"
		"${apt[@]}" update -q
	fi
	# A list that is present but stale can still point at files the mirror has dropped:
	# refresh once and retry before giving up.
	if ! DEBIAN_FRONTEND=noninteractive "${install[@]}"; then
		log "install failed; apt-get update and retry"
		"${apt[@]}" update -q
		DEBIAN_FRONTEND=noninteractive "${install[@]}"
	fi
}

# ---------------------------------------------------------------- pgvector

vector_control() { echo "$("$PG_CONFIG" --sharedir)/extension/vector.control"; }

vector_version() { sed -n "s/^default_version *= *'\(.*\)'.*/\1/p" "$(vector_control)" 2>/dev/null; }

debian_mirror() {
	local m=""
	if [ -r /etc/apt/sources.list.d/debian.sources ]; then
		m=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources | head -n1 | awk '{print $1}')
	fi
	if [ -z "$m" ] && [ -r /etc/apt/sources.list ]; then # older one-line format
		m=$(awk '$1 == "deb" && $0 ~ /debian\/? / {for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' /etc/apt/sources.list)
	fi
	[ -n "$m" ] || die "no Debian mirror found in /etc/apt/sources.list.d/debian.sources"
	echo "$m"
}

# Bookworm has no pgvector package: build it from Debian trixie's source package through
# a private apt configuration (lists and caches in a temporary directory, /etc untouched).
install_pgvector() {
	[ -x "$PG_CONFIG" ] || die "$PG_CONFIG not found (postgresql-$PG_MAJOR missing?)"
	if [ -f "$(vector_control)" ] && [ -f "$("$PG_CONFIG" --pkglibdir)/vector.so" ]; then
		log "pgvector $(vector_version) already installed for PostgreSQL $PG_MAJOR"
		return 0
	fi
	is_root || die "pgvector is not installed for PostgreSQL $PG_MAJOR; run as root to build it"
	[ -f "$("$PG_CONFIG" --pgxs)" ] || die "PGXS missing: postgresql-server-dev-$PG_MAJOR is not installed"

	local t mirror aptopt src
	t=$(mktemp -d "${TMPDIR:-/tmp}/engram-pgvector.XXXXXX")
	BUILD_TMP=$t
	mkdir -p "$t/apt/lists/partial" "$t/apt/parts" "$t/apt/cache/archives/partial"
	mirror=$(debian_mirror)
	printf 'Types: deb-src\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$mirror" >"$t/apt/parts/trixie-src.sources"
	aptopt=(-o Dir::Etc::sourcelist=/dev/null -o "Dir::Etc::sourceparts=$t/apt/parts"
		-o "Dir::State::Lists=$t/apt/lists" -o "Dir::Cache=$t/apt/cache"
		-o APT::Sandbox::User=root -o Acquire::Retries=3)
	log "building pgvector from Debian trixie source ($mirror)"
	apt-get "${aptopt[@]}" update -q
	(cd "$t" && apt-get "${aptopt[@]}" source -q --download-only pgvector)
	(cd "$t" && tar xf pgvector_*.orig.tar.*)
	src=$(find "$t" -mindepth 1 -maxdepth 1 -type d -name 'pgvector-*' | head -n1)
	[ -n "$src" ] || die "pgvector source tree not found after unpacking"
	# OPTFLAGS="" keeps -march=native out: the library must run on any CI machine.
	make -s -C "$src" -j"$(nproc)" PG_CONFIG="$PG_CONFIG" OPTFLAGS=""
	make -s -C "$src" install PG_CONFIG="$PG_CONFIG" OPTFLAGS=""
	[ -f "$(vector_control)" ] || die "pgvector install did not produce $(vector_control)"
	rm -rf "$t"
	BUILD_TMP=
	log "pgvector $(vector_version) installed"
}

# ---------------------------------------------------------------- state

prepare_dir() {
	mkdir -p "$DIR"
	if is_root; then
		chown postgres:postgres "$DIR"
		chmod 0755 "$DIR"
		runuser -u postgres -- test -w "$DIR" ||
			die "user postgres cannot write $DIR (a parent directory is closed?); set ENGRAM_SERVICES_DIR"
	fi
}

write_env() {
	local tmp=$ENV_FILE.tmp
	{
		echo "export ENGRAM_TEST_POSTGRES_DSN=postgres://postgres@$HOST:$PG_PORT/$DB?sslmode=disable"
		echo "export ENGRAM_TEST_REDIS_ADDR=$HOST:$REDIS_PORT"
	} >"$tmp"
	chmod 0644 "$tmp"
	mv -f "$tmp" "$ENV_FILE"
}

# ---------------------------------------------------------------- postgres

pg_running() { [ -f "$PGDATA/PG_VERSION" ] && as_pg "$PGBIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; }
pg_answers() { "$PGBIN/pg_isready" -q -h "$HOST" -p "$PG_PORT" -U postgres -t 2 >/dev/null 2>&1; }

start_postgres() {
	if [ ! -f "$PGDATA/PG_VERSION" ]; then
		log "initdb $PGDATA"
		rm -rf "$PGDATA"
		as_pg "$PGBIN/initdb" -D "$PGDATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
	fi
	if pg_running; then
		log "PostgreSQL already running ($PGDATA)"
	else
		pg_answers && die "port $PG_PORT already answers but not from $PGDATA; stop that server or set ENGRAM_SERVICES_PG_PORT"
		log "starting PostgreSQL $PG_MAJOR on $HOST:$PG_PORT"
		# fsync off: a throwaway test server, speed matters more than crash safety.
		if ! as_pg "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGLOG" -w -t 60 \
			-o "-c listen_addresses=$HOST -p $PG_PORT -k $DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
			start >/dev/null 9>&-; then
			tail -n 30 "$PGLOG" >&2 || true
			die "PostgreSQL did not start (log: $PGLOG)"
		fi
	fi
	wait_for "PostgreSQL" pg_answers
	if [ "$(psql_ -At -c "SELECT 1 FROM pg_database WHERE datname = '$DB'")" != 1 ]; then
		log "creating database $DB"
		psql_ -c "CREATE DATABASE $DB"
	fi
	psql_ -d "$DB" -c "CREATE EXTENSION IF NOT EXISTS vector"
}

stop_postgres() {
	if pg_running; then
		log "stopping PostgreSQL"
		as_pg "$PGBIN/pg_ctl" -D "$PGDATA" -m fast -w -t 60 stop >/dev/null
	else
		log "PostgreSQL not running"
	fi
}

# ---------------------------------------------------------------- redis

# alive: the process exists and is not a zombie waiting to be reaped.
alive() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

redis_pid() {
	local pid
	[ -f "$REDIS_PID" ] || return 1
	pid=$(cat "$REDIS_PID" 2>/dev/null) || return 1
	[[ "$pid" =~ ^[0-9]+$ ]] || return 1
	alive "$pid" || return 1
	# A recycled pid belonging to something else is not our redis.
	grep -q redis-server "/proc/$pid/cmdline" 2>/dev/null || return 1
	echo "$pid"
}
redis_running() { redis_pid >/dev/null; }
redis_answers() { [ "$(redis-cli -h "$HOST" -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; }

start_redis() {
	if redis_running; then
		log "Redis already running (pid $(redis_pid))"
	else
		redis_answers && die "port $REDIS_PORT already answers but not from $REDIS_PID; stop that server or set ENGRAM_SERVICES_REDIS_PORT"
		log "starting Redis on $HOST:$REDIS_PORT"
		rm -f "$REDIS_PID"
		redis-server --daemonize yes --bind "$HOST" --port "$REDIS_PORT" \
			--save "" --appendonly no --dir "$DIR" --logfile "$REDIS_LOG" --pidfile "$REDIS_PID" >/dev/null 9>&-
	fi
	wait_for "Redis" redis_answers
	local v
	v=$(redis-cli -h "$HOST" -p "$REDIS_PORT" info server | sed -n 's/^redis_version:\([0-9]*\).*/\1/p')
	[ "${v:-0}" -ge 7 ] || log "warning: Redis major version is ${v:-unknown}, expected 7"
}

stop_redis() {
	local pid i
	if pid=$(redis_pid); then
		log "stopping Redis (pid $pid)"
		kill "$pid" 2>/dev/null || true
		for ((i = 0; i < 100; i++)); do
			alive "$pid" || break
			sleep 0.1
		done
		if alive "$pid"; then kill -9 "$pid" 2>/dev/null || true; fi
	else
		log "Redis not running"
	fi
	rm -f "$REDIS_PID"
}

# ---------------------------------------------------------------- helpers

wait_for() {
	local what=$1 check=$2 i
	for ((i = 0; i < 120; i++)); do
		"$check" && return 0
		sleep 0.5
	done
	die "$what on $HOST did not answer within 60 s"
}

# Serialise concurrent runs on the same state directory. The daemons are started with
# fd 9 closed, or they would hold the lock for as long as they run.
lock() {
	mkdir -p "$DIR"
	exec 9>"$DIR/.lock"
	flock -w 900 9 || die "another test/services.sh holds $DIR/.lock"
}

# ---------------------------------------------------------------- commands

cmd_up() {
	local start=$SECONDS
	lock
	install_packages
	install_pgvector
	prepare_dir
	start_postgres
	start_redis
	write_env
	log "up in $((SECONDS - start)) s; pgvector $(vector_version); env: $ENV_FILE"
	cat "$ENV_FILE" >&2
}

cmd_down() {
	if [ ! -d "$DIR" ]; then
		log "nothing to stop ($DIR does not exist)"
		return 0
	fi
	lock
	stop_postgres
	stop_redis
}

cmd_env() {
	[ -f "$ENV_FILE" ] || die "$ENV_FILE not found; run test/services.sh up first"
	cat "$ENV_FILE"
}

cmd_status() {
	local rc=0
	if pg_running && pg_answers; then
		echo "postgres: running on $HOST:$PG_PORT (data $PGDATA)"
	elif pg_answers; then
		echo "postgres: something else answers on $HOST:$PG_PORT (not $PGDATA)"
		rc=3
	else
		echo "postgres: not running"
		rc=3
	fi
	if redis_running && redis_answers; then
		echo "redis:    running on $HOST:$REDIS_PORT (pid $(redis_pid))"
	elif redis_answers; then
		echo "redis:    something else answers on $HOST:$REDIS_PORT (no pidfile in $DIR)"
		rc=3
	else
		echo "redis:    not running"
		rc=3
	fi
	if [ -f "$(vector_control)" ]; then
		echo "pgvector: $(vector_version) installed for PostgreSQL $PG_MAJOR"
	else
		echo "pgvector: not installed"
	fi
	echo "state:    $DIR"
	return "$rc"
}

case "${1:-}" in
up) cmd_up ;;
down) cmd_down ;;
env) cmd_env ;;
status) cmd_status ;;
*)
	echo "usage: $0 up|down|env|status" >&2
	exit 2
	;;
esac
