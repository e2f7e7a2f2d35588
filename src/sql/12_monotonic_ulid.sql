--------------------------------------------------------------------------------
-- gen_monotonic_ulid(): ULIDs in one order for the whole server (pgx_ulid's name). One generator
-- for every session and database, its state shared like TraceIds' (shared memory when preloaded,
-- the DSM registry on 17 and later, locked files otherwise) with a persisted high-water mark: each
-- ULID is greater than every one it returned before the call began, across restarts, crashes and a
-- clock stepping back. 48-bit Unix ms | 16-bit counter within the ms | 64 CSPRNG bits.
-- VOLATILE PARALLEL UNSAFE: it writes the server's shared state (refused, 25006, in a read-only
-- transaction or on a standby), as gen_trace_id() does.
-- monotonic_ulid_raise_mark(above): from now on, only ULIDs of later milliseconds than `above`,
-- for ULIDs carried in from another server. Superuser only by default: the mark is the server's
-- and never moves back.
--------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION gen_monotonic_ulid() RETURNS ulid
    AS 'MODULE_PATHNAME', 'gen_monotonic_ulid' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION gen_monotonic_ulid() IS 'new ULID greater than every ULID it has returned on this server (ms, 16-bit counter, 64 CSPRNG bits)';

CREATE OR REPLACE FUNCTION monotonic_ulid_raise_mark(above ulid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'monotonic_ulid_raise_mark' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION monotonic_ulid_raise_mark(ulid) IS 'makes gen_monotonic_ulid() issue only ULIDs of later milliseconds than the given one from now on; returns the high-water mark';
REVOKE ALL ON FUNCTION monotonic_ulid_raise_mark(ulid) FROM PUBLIC;
