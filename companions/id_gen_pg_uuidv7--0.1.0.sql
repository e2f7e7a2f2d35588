-- id_gen_pg_uuidv7 0.1.0: pg_uuidv7's five functions, with its labels and its answers, over id_gen.
-- Released with id_gen 0.4.0 and frozen since: a change is a new version with an upgrade script.
-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION id_gen_pg_uuidv7" to load this file. \quit

-- What pg_uuidv7 does, and so what these do:
--  - uuid_generate_v7(): the current Unix milliseconds in 48 bits, 74 random bits, the version (7)
--    and variant (10) bits; not monotonic within a millisecond. VOLATILE STRICT PARALLEL SAFE.
--  - uuid_v7_to_timestamptz(uuid), uuid_v7_to_timestamp(uuid): the first 48 bits as Unix
--    milliseconds, of any uuid (no version is checked). STABLE STRICT PARALLEL SAFE.
--  - uuid_timestamptz_to_v7(timestamptz, zero), uuid_timestamp_to_v7(timestamp, zero): a v7 of
--    the time's millisecond; with zero => true the 74 random bits are 0 (the version and variant
--    bits still set). Its C code computes the milliseconds in unsigned 64-bit arithmetic,
--    ((microseconds since 1970) mod 2^64) div 1000, and keeps the low 48 bits: a time before 1970
--    (or past 10889) wraps around instead of failing, and so does it here. STABLE STRICT.
-- The random bits are id_gen's (gen_ulid(timestamptz): 80 bits from its per-backend CSPRNG), the
-- time of a uuid is read by id_gen's ulid_time(). The relocatable companion names id_gen's
-- objects by the schema id_gen is in when it is created (@extschema:id_gen@ exists only from
-- PostgreSQL 16): read from pg_extension and written into each function's body.
DO $companion$
DECLARE
    idgen text := (SELECT pg_catalog.quote_ident(n.nspname)
                   FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
                   WHERE e.extname = 'id_gen');
    -- pg_uuidv7's milliseconds of the timestamp or timestamptz t (%1$s: its type): its int64
    -- microseconds since 2000 (the bytes of its binary output, +-infinity the int64 extremes) made
    -- Unix microseconds in unsigned 64-bit arithmetic, divided by 1000, the low 48 bits kept.
    ms text := $$pg_catalog.mod(pg_catalog.div(pg_catalog.mod(
            ('x' || pg_catalog.encode(pg_catalog.%1$s_send(t), 'hex'))::pg_catalog.bit(64)::pg_catalog.int8::pg_catalog.numeric
            + 946684800000000 + 18446744073709551616, 18446744073709551616), 1000), 281474976710656)::pg_catalog.int8$$;
    -- A v7 of the time t (%1$s: its type) and 10 bytes r: the first 48 bits the milliseconds, then
    -- r with the version (0111) and variant (10) bits set. r is 10 fresh random bytes from id_gen
    -- (%2$s: its schema), or 10 zero bytes where z (zero => true).
    body text := $$SELECT pg_catalog.encode(pg_catalog.substr(pg_catalog.int8send(%3$s << 16), 1, 6)
        || pg_catalog.set_byte(pg_catalog.set_byte(r, 0, (pg_catalog.get_byte(r, 0) & 15) | 112),
                               2, (pg_catalog.get_byte(r, 2) & 63) | 128), 'hex')::pg_catalog.uuid
    FROM (SELECT t, CASE WHEN z THEN '\x00000000000000000000'::pg_catalog.bytea
                         ELSE pg_catalog.substr(pg_catalog.uuid_send(%2$s.gen_ulid('2000-01-01 00:00:00+00')::pg_catalog.uuid), 7) END AS r
          FROM (SELECT %4$s AS t, %5$s AS z) a) s$$;
BEGIN
    IF idgen IS NULL THEN
        RAISE EXCEPTION 'id_gen_pg_uuidv7 needs the extension id_gen' USING ERRCODE = '55000';
    END IF;
    EXECUTE pg_catalog.format($f$
        CREATE FUNCTION uuid_generate_v7() RETURNS uuid
        LANGUAGE sql VOLATILE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
        AS %L$f$, pg_catalog.format(body, 'timestamptz', idgen, pg_catalog.format(ms, 'timestamptz'), 'pg_catalog.clock_timestamp()', 'false'));
    EXECUTE pg_catalog.format($f$
        CREATE FUNCTION uuid_timestamptz_to_v7(timestamptz, zero bool = false) RETURNS uuid
        LANGUAGE sql STABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
        AS %L$f$, pg_catalog.format(body, 'timestamptz', idgen, pg_catalog.format(ms, 'timestamptz'), '$1', '$2'));
    EXECUTE pg_catalog.format($f$
        CREATE FUNCTION uuid_timestamp_to_v7(timestamp, zero bool = false) RETURNS uuid
        LANGUAGE sql STABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
        AS %L$f$, pg_catalog.format(body, 'timestamp', idgen, pg_catalog.format(ms, 'timestamp'), '$1', '$2'));
    EXECUTE pg_catalog.format($f$
        CREATE FUNCTION uuid_v7_to_timestamptz(uuid) RETURNS timestamptz
        LANGUAGE sql STABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
        AS %L$f$, pg_catalog.format('SELECT %1$s.ulid_time($1::%1$s.ulid)', idgen));
    EXECUTE pg_catalog.format($f$
        CREATE FUNCTION uuid_v7_to_timestamp(uuid) RETURNS timestamp
        LANGUAGE sql STABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
        AS %L$f$, pg_catalog.format($$SELECT %1$s.ulid_time($1::%1$s.ulid) AT TIME ZONE 'UTC'$$, idgen));
END
$companion$;

COMMENT ON FUNCTION uuid_generate_v7() IS
    'pg_uuidv7''s: a version 7 UUID of the current millisecond with 74 random bits (id_gen_pg_uuidv7)';
COMMENT ON FUNCTION uuid_v7_to_timestamptz(uuid) IS
    'pg_uuidv7''s: the first 48 bits of any UUID as Unix milliseconds (id_gen_pg_uuidv7)';
COMMENT ON FUNCTION uuid_v7_to_timestamp(uuid) IS
    'pg_uuidv7''s: the first 48 bits of any UUID as Unix milliseconds, a UTC timestamp (id_gen_pg_uuidv7)';
COMMENT ON FUNCTION uuid_timestamptz_to_v7(timestamptz, bool) IS
    'pg_uuidv7''s: a version 7 UUID of the given millisecond, random bits zero when zero => true (id_gen_pg_uuidv7)';
COMMENT ON FUNCTION uuid_timestamp_to_v7(timestamp, bool) IS
    'pg_uuidv7''s: a version 7 UUID of the given UTC millisecond, random bits zero when zero => true (id_gen_pg_uuidv7)';
