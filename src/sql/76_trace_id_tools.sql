-------------------------------------------------------------------------------
-- TraceId: the tools snowflakes and shards have (added in 0.3.0; part of the install script and
-- of the 0.2.0 -> 0.3.0 upgrade script).
--   trace_id_lower(at), trace_id_upper(at)   the smallest and largest TraceId of the second
--       containing `at`: range scans over one period, for example
--       WHERE trace_id BETWEEN trace_id_lower(a) AND trace_id_upper(b)
--   trace_id_raise_mark(above)   gen_trace_id() issues only IDs of later seconds than `above`
--       (read in the period nearest the clock) from now on, for IDs carried in by a dump.
--       Superuser only by default: the mark is shared by every database of the server and never
--       moves back.
-------------------------------------------------------------------------------
CREATE FUNCTION trace_id_lower(at timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'trace_id_lower' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION trace_id_lower(timestamptz) IS 'smallest TraceId of the second containing the given time';

CREATE FUNCTION trace_id_upper(at timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'trace_id_upper' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION trace_id_upper(timestamptz) IS 'largest TraceId of the second containing the given time';

CREATE FUNCTION trace_id_raise_mark(above bigint) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'trace_id_raise_mark' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION trace_id_raise_mark(bigint) IS 'makes gen_trace_id() issue only IDs of later seconds than the given one from now on; returns the high-water mark';
REVOKE ALL ON FUNCTION trace_id_raise_mark(bigint) FROM PUBLIC;
