#!/usr/bin/env bash
# Starts a real Neo4j (community, embedded; see launcher/) on a free loopback port for the tests,
# in the background, and prints on stdout one line to eval:
#   export NEO4J_TEST_URI=bolt://127.0.0.1:PORT NEO4J_TEST_USER=neo4j NEO4J_TEST_PASSWORD=... \
#     NEO4J_TEST_READER_USER=reader NEO4J_TEST_READER_PASSWORD=...
# Everything else goes to stderr. Usage:
#   eval "$(neo4j/start.sh)"            # then: npm test; neo4j/stop.sh
#   neo4j/start.sh --run-dir DIR --watch-pid PID --port N
#   neo4j/start.sh --build-only         # just build the launcher (Maven, ~200 MB into ~/.m2 once)
# --run-dir: where the pid file, the log, the env line and the (fresh) database go; default
# neo4j/.run. --watch-pid: the server stops by itself when that process exits. --port: 0 (default)
# lets the kernel choose a free port, so two runs never race for one.
# Env: NEO4J_TEST_PASSWORD / NEO4J_TEST_READER_PASSWORD (default: random), NEO4J_START_TIMEOUT
# (seconds, default 120), NEO4J_JAVA_HOME (a JDK >= 21; default: JAVA_HOME if >= 21, else the
# newest JDK >= 21 under /usr/lib/jvm), NEO4J_HEAP (default 1g).
set -euo pipefail

NEO4J_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LAUNCHER_DIR="${NEO4J_DIR}/launcher"
RUN_DIR="${NEO4J_DIR}/.run"
PORT=0
WATCH_PID=""
BUILD_ONLY=0

log() { printf 'neo4j: %s\n' "$*" >&2; }
die() {
  log "$*"
  exit 1
}

while [ $# -gt 0 ]; do
  case "$1" in
    --run-dir) RUN_DIR="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    --watch-pid) WATCH_PID="$2"; shift 2 ;;
    --build-only) BUILD_ONLY=1; shift ;;
    -h | --help) sed -n '2,16p' "${BASH_SOURCE[0]}" >&2; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done

# The major version of the JDK at $1, or 0.
jdk_major() {
  local home="$1" v=""
  [ -x "${home}/bin/java" ] && [ -x "${home}/bin/javac" ] || { echo 0; return; }
  if [ -f "${home}/release" ]; then
    v="$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "${home}/release")"
  fi
  if [ -z "${v}" ]; then
    v="$("${home}/bin/java" -XshowSettings:properties -version 2>&1 |
      sed -n 's/^ *java\.specification\.version = //p')"
  fi
  v="${v#1.}"
  v="${v%%[.+-]*}"
  [[ "${v}" =~ ^[0-9]+$ ]] && echo "${v}" || echo 0
}

find_jdk() {
  local candidate
  for candidate in "${NEO4J_JAVA_HOME:-}" "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64; do
    if [ -n "${candidate}" ] && [ "$(jdk_major "${candidate}")" -ge 21 ]; then
      echo "${candidate}"
      return
    fi
  done
  # Any other JDK >= 21, newest first.
  local best="" best_major=0 major
  for candidate in /usr/lib/jvm/*/ /opt/java/*/ /opt/*jdk*/; do
    [ -d "${candidate}" ] || continue
    candidate="${candidate%/}"
    major="$(jdk_major "${candidate}")"
    if [ "${major}" -ge 21 ] && [ "${major}" -gt "${best_major}" ]; then
      best="${candidate}"
      best_major="${major}"
    fi
  done
  [ -n "${best}" ] && echo "${best}"
}

JDK="$(find_jdk || true)"
[ -n "${JDK}" ] || die "no JDK >= 21 found (Neo4j needs Java 21+). Install one (e.g. Temurin 21/25 \
under /usr/lib/jvm) or set NEO4J_JAVA_HOME to it."
export JAVA_HOME="${JDK}"
JAVA_MAJOR="$(jdk_major "${JDK}")"

# Builds neo4j/launcher when its sources are newer than the last build. Offline first (fast when
# ~/.m2 has everything), online otherwise. A lock keeps parallel test processes from building twice.
build_launcher() {
  local stamp="${LAUNCHER_DIR}/target/.built"
  local newer
  if [ -f "${stamp}" ] && [ -d "${LAUNCHER_DIR}/target/lib" ]; then
    newer="$(find "${LAUNCHER_DIR}/pom.xml" "${LAUNCHER_DIR}/src" -newer "${stamp}" -print -quit)"
    [ -z "${newer}" ] && return 0
  fi
  command -v mvn >/dev/null 2>&1 || die "Maven (mvn) is needed to build the launcher \
(Debian: apt-get install maven)."
  mkdir -p "${LAUNCHER_DIR}/target"
  exec 9>"${LAUNCHER_DIR}/target/.build.lock"
  flock 9
  # Another process may have built it while we waited.
  if [ -f "${stamp}" ] && [ -z "$(find "${LAUNCHER_DIR}/pom.xml" "${LAUNCHER_DIR}/src" \
    -newer "${stamp}" -print -quit)" ]; then
    exec 9>&-
    return 0
  fi
  local started=${SECONDS} out="${LAUNCHER_DIR}/target/build.log"
  log "building the launcher with Maven (JDK ${JAVA_MAJOR}; the first build downloads ~200 MB)"
  if ! (cd "${LAUNCHER_DIR}" && mvn -q -B -o package >"${out}" 2>&1); then
    if ! (cd "${LAUNCHER_DIR}" && mvn -q -B package >"${out}" 2>&1); then
      tail -n 40 "${out}" >&2
      exec 9>&-
      die "building the launcher failed (log: ${out})"
    fi
  fi
  touch "${stamp}"
  exec 9>&-
  log "built in $((SECONDS - started)) s"
}

build_launcher
[ "${BUILD_ONLY}" = 1 ] && exit 0

mkdir -p "${RUN_DIR}"
RUN_DIR="$(cd "${RUN_DIR}" && pwd)"
PID_FILE="${RUN_DIR}/neo4j.pid"
LOG_FILE="${RUN_DIR}/neo4j.log"
ENV_FILE="${RUN_DIR}/env"
if [ -f "${PID_FILE}" ] && kill -0 "$(cat "${PID_FILE}")" 2>/dev/null; then
  die "already running (pid $(cat "${PID_FILE}"), ${ENV_FILE}); stop it first: ${NEO4J_DIR}/stop.sh \
--run-dir ${RUN_DIR}"
fi
rm -rf "${RUN_DIR}/data" "${PID_FILE}" "${ENV_FILE}"

random_password() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }
PASSWORD="${NEO4J_TEST_PASSWORD:-$(random_password)}"
READER_PASSWORD="${NEO4J_TEST_READER_PASSWORD:-$(random_password)}"

JAVA_OPTS=(
  "-Xms256m" "-Xmx${NEO4J_HEAP:-1g}" "-XX:+UseG1GC" "-XX:+ExitOnOutOfMemoryError"
  "-XX:-OmitStackTraceInFastThrow" "-Djdk.nio.maxCachedBufferSize=1024"
  "-Dio.netty.tryReflectionSetAccessible=true"
  "--add-opens=java.base/java.nio=ALL-UNNAMED" "--add-opens=java.base/java.io=ALL-UNNAMED"
  "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED" "--add-opens=java.base/java.lang=ALL-UNNAMED"
  "--enable-native-access=ALL-UNNAMED"
)
[ "${JAVA_MAJOR}" -ge 24 ] && JAVA_OPTS+=("--sun-misc-unsafe-memory-access=allow")
ARGS=(--port "${PORT}" --data "${RUN_DIR}/data" --pid-file "${PID_FILE}")
[ -n "${WATCH_PID}" ] && ARGS+=(--watch-pid "${WATCH_PID}")

started=${SECONDS}
# setsid: its own session, so it outlives this script and no terminal signal reaches it; --wait
# keeps $! alive exactly as long as Java whether or not setsid had to fork.
NEO4J_PASSWORD="${PASSWORD}" NEO4J_READER_PASSWORD="${READER_PASSWORD}" \
  setsid --wait "${JDK}/bin/java" "${JAVA_OPTS[@]}" \
  -cp "${LAUNCHER_DIR}/target/lib/*:${LAUNCHER_DIR}/target/classes" threadmind.neo4j.Launcher \
  "${ARGS[@]}" >"${LOG_FILE}" 2>&1 </dev/null &
SPAWNED=$!

TIMEOUT="${NEO4J_START_TIMEOUT:-120}"
URI=""
while [ $((SECONDS - started)) -lt "${TIMEOUT}" ]; do
  URI="$(sed -n 's/^NEO4J READY \(bolt:\/\/[^ ]*\)$/\1/p' "${LOG_FILE}" | head -n 1)"
  [ -n "${URI}" ] && break
  if ! kill -0 "${SPAWNED}" 2>/dev/null || grep -q '^NEO4J FAILED' "${LOG_FILE}"; then
    break
  fi
  sleep 0.2
done
if [ -z "${URI}" ]; then
  grep -v '^WARNING: ' "${LOG_FILE}" | tail -n 40 >&2 || true
  if [ -s "${PID_FILE}" ]; then kill "$(cat "${PID_FILE}")" 2>/dev/null || true; fi
  die "Neo4j did not start within ${TIMEOUT} s (log: ${LOG_FILE})"
fi

line="$(printf 'export NEO4J_TEST_URI=%q NEO4J_TEST_USER=neo4j NEO4J_TEST_PASSWORD=%q' \
  "${URI}" "${PASSWORD}")"
line+="$(printf ' NEO4J_TEST_READER_USER=reader NEO4J_TEST_READER_PASSWORD=%q' "${READER_PASSWORD}")"
printf '%s\n' "${line}" >"${ENV_FILE}"
log "ready at ${URI} in $((SECONDS - started)) s (pid $(cat "${PID_FILE}"), log ${LOG_FILE})"
printf '%s\n' "${line}"
