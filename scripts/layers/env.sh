# The test command's settings and ports, in one place (sourced by scripts/test.sh and by the jobs it
# starts, scripts/layers/job.sh). Every variable below may be set in the environment; the
# command-line options of scripts/test.sh set the same ones.
# shellcheck shell=bash

# ---- What runs
# IDGEN_PG_VERSIONS  the server versions, in order (default "15 17 18"; --versions). Each gets a
#                    job of its own, and the jobs run side by side (IDGEN_TEST_SERIAL=1 or
#                    --serial: one after another).
IDGEN_PG_VERSIONS=${IDGEN_PG_VERSIONS-15 17 18}
# IDGEN_LAYERS       the layers, comma-separated (default: all; --layers). Names:
#                    package unit sql integration readme reference library fault citus fuzz
#                    release cross
IDGEN_ALL_LAYERS="package unit sql integration readme reference library fault citus fuzz release cross"
IDGEN_LAYERS=${IDGEN_LAYERS:-all}
# IDGEN_FILTER       a GoogleTest filter for the GoogleTest layers (--filter), e.g. 'ShardCache.*'
#                    or 'Ulid*:Snowflake.*-*Slow'; for the sql layer, the pg_regress tests whose
#                    names match one of its ':'-separated patterns (shell globs). Empty: all.
IDGEN_FILTER=${IDGEN_FILTER:-}
# IDGEN_TEST_LONG=1  also the slow checks (--long): pg_regress again under debug_discard_caches.
IDGEN_TEST_LONG=${IDGEN_TEST_LONG:-}
# KEEP_WORK=1        keep each job's work directory and leave its main clusters running after
#                    the run (--keep), for psql or a debugger; the run prints how to reach them.
KEEP_WORK=${KEEP_WORK:-}
# FUZZ_SECONDS       seconds per fuzz target (default 8).
FUZZ_SECONDS=${FUZZ_SECONDS:-8}
# IDGEN_CITUS_PG_CONFIG  the Citus layer's server (default: scripts/citus.sh's).
# IDGEN_INTEGRATION_SECOND  the integration suites run on a second pair of clusters at the same
#                    time as the others (see integration.sh); "" runs every suite in one process.

# ---- Ports. Every cluster listens on a Unix socket in its own directory; the Citus layer's also
# on 127.0.0.1. IDGEN_TEST_PORT is the first (default 54329):
#   base          the package layer (the README's demo and the Debian packages' cluster)
#   base+1..+6    the cross-version layer (scripts/crossver.sh)
#   base+10+15k   the first of the 15 ports of the k-th version in IDGEN_PG_VERSIONS (k = 0, 1,
#                 2): 54339, 54354 and 54369 by default. From a version's first port P:
#     P, P+1      its main pair of clusters (id_gen preloaded, node 1; not preloaded, node 2)
#     P+2, P+3    servers the integration tests on the main pair add; the fault layer's upgrade test
#     P+4..P+7    the integration layer's second pair and the servers its tests add
#     P+8, P+9    the fault layer (beside the integration layer)
#     P+10        the release check beside the layers (a copy of the server)
#     P+11..P+14  the Citus layer: coordinator, two workers, a node a test adds (TCP, 127.0.0.1)
IDGEN_TEST_PORT=${IDGEN_TEST_PORT:-54329}
IDGEN_PORTS_PER_VERSION=15
idgen_version_port() { # idgen_version_port K: the first port of the K-th version (from 0)
  echo $((IDGEN_TEST_PORT + 10 + IDGEN_PORTS_PER_VERSION * $1))
}
idgen_last_port() { # the last port a run over N versions uses
  echo $(($(idgen_version_port "$1") - 1))
}
IDGEN_CROSS_FIRST_PORT=$((IDGEN_TEST_PORT + 1))

idgen_layer_selected() { # idgen_layer_selected NAME: is the layer in IDGEN_LAYERS?
  [ "$IDGEN_LAYERS" = all ] || [[ ",$IDGEN_LAYERS," == *",$1,"* ]]
}

export IDGEN_PG_VERSIONS IDGEN_LAYERS IDGEN_FILTER IDGEN_TEST_LONG KEEP_WORK FUZZ_SECONDS IDGEN_TEST_PORT
