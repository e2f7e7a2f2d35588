# id_gen: PGXS build of the extension. Tests and tools are built by CMakeLists.txt.
EXTENSION  = id_gen
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" $(EXTENSION).control)

MODULE_big = id_gen
# C++ glue and core, one folder deep by concern (src/core/<area>/, src/pg/<area>/: see their
# README.md); src/pg/*/*.c is glue that must use PG_TRY, which C++ code never does.
OBJS       = $(patsubst %.c,%.o,$(patsubst %.cpp,%.o,$(sort $(wildcard src/core/*/*.cpp) $(wildcard src/pg/*/*.cpp) $(wildcard src/pg/*/*.c))))

# The install script of the current version is src/sql/*.sql joined in the order of their names
# (one file per area, each as the area is now; src/sql/README.md gives the rules of the order).
# The upgrade script into the current version is src/update/<from>--<to>.sql, where a line
# `\ir ../sql/NN_area.sql` is replaced by that file (a definition written once, with CREATE OR
# REPLACE, serves both scripts). Released scripts are committed, frozen, at the root: at a
# release, the built install and upgrade scripts are copied there and never edited again.
UPDATES    = $(patsubst src/update/%.sql,$(EXTENSION)--%.sql,$(wildcard src/update/*.sql))
DATA_built = $(EXTENSION)--$(EXTVERSION).sql $(UPDATES)
DATA       = $(filter-out $(DATA_built),$(wildcard $(EXTENSION)--*.sql))
# Companion extensions (companions/README.md): their control files and frozen scripts.
DATA      += $(wildcard companions/*.control) $(wildcard companions/*--*.sql)

REGRESS      = $(sort $(basename $(notdir $(wildcard sql/*.sql))))
REGRESS_OPTS = --inputdir=. --load-extension=$(EXTENSION)

IDGEN_CXXFLAGS = -std=c++17 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wno-register
PG_CPPFLAGS    = -I$(srcdir)/src
PG_CXXFLAGS    = $(IDGEN_CXXFLAGS)
SHLIB_LINK     = -lstdc++ -lcrypto
EXTRA_CLEAN    = $(DATA_built)

PG_CONFIG ?= pg_config
# `make dist` needs no PostgreSQL: the release archive, id_gen-<version>.zip (scripts/release.sh).
ifeq ($(MAKECMDGOALS),dist)
.PHONY: dist
dist:
	$(CURDIR)/scripts/release.sh
else
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PostgreSQL's headers are not ours to warn about.
override CPPFLAGS := $(patsubst -I$(includedir_server),-isystem $(includedir_server),$(patsubst -I$(includedir_internal),-isystem $(includedir_internal),$(CPPFLAGS)))

# The server is built with LLVM: PGXS also compiles each .cpp to bitcode with clang and its own
# flags, whose default dialect predates C++17.
BITCODE_CXXFLAGS += $(IDGEN_CXXFLAGS)

# The install guard (src/sql/00_head.sql) gets the list of what the script creates, read
# from the script itself by scripts/install_objects.pl.
$(EXTENSION)--$(EXTVERSION).sql: $(sort $(wildcard src/sql/*.sql)) $(EXTENSION).control scripts/install_objects.pl
	cat $(sort $(wildcard src/sql/*.sql)) > $@.tmp
	perl scripts/install_objects.pl $@.tmp > $@.objects
	awk 'FNR == NR { list = list $$0 "\n"; next } /-- install_objects$$/ { sub(/\n$$/, "", list); sub(/'"'"'\{\}'"'"'::text\[\]; -- install_objects$$/, ""); printf "%s%s;\n", $$0, list; next } { print }' $@.objects $@.tmp > $@
	rm -f $@.tmp $@.objects

$(EXTENSION)--%.sql: src/update/%.sql $(sort $(wildcard src/sql/*.sql))
	awk '/^\\ir /{f = "src/update/" $$2; while ((getline l < f) > 0) print l; close(f); next} {print}' $< > $@

$(OBJS): $(wildcard src/core/*/*.h src/pg/*/*.h)
endif
