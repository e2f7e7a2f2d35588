-------------------------------------------------------------------------------
-- TraceId and DecimalId. Both are bigints.
--   TraceId   Unix seconds mod 2^25 << 38 | node (id_gen.node_id) << 22 | counter (>= 1): unique
--             within one 2^25 s period (about 388 days); its time is read near a reference time.
--   DecimalId counter * 10^10 + generator * 10^5 + launch (id_gen.launch_id), c...cggggglllll.
-- Most are written with CREATE OR REPLACE, so an upgrade script can include them.
-------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION gen_trace_id() RETURNS bigint
    AS 'MODULE_PATHNAME', 'gen_trace_id' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION gen_trace_id() IS 'new TraceId (25-bit Unix seconds, 16-bit node id_gen.node_id, 22-bit counter); unique within a 2^25 s period';

CREATE OR REPLACE FUNCTION trace_id_time(id bigint, reference timestamptz DEFAULT now()) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'trace_id_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION trace_id_time(bigint, timestamptz) IS 'the second a TraceId was issued in, taken in the 2^25 s period nearest the reference time';

CREATE OR REPLACE FUNCTION trace_id_node(id bigint) RETURNS integer
    AS 'MODULE_PATHNAME', 'trace_id_node' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION trace_id_node(bigint) IS 'the node number of a TraceId';

CREATE OR REPLACE FUNCTION trace_id_counter(id bigint) RETURNS integer
    AS 'MODULE_PATHNAME', 'trace_id_counter' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION trace_id_counter(bigint) IS 'the counter of a TraceId (1 to 4194303)';

CREATE OR REPLACE FUNCTION trace_id_is_valid(id bigint, reference timestamptz DEFAULT now(),
                                             max_skew interval DEFAULT '1 day') RETURNS boolean
    AS 'MODULE_PATHNAME', 'trace_id_is_valid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION trace_id_is_valid(bigint, timestamptz, interval) IS 'whether a bigint can be a TraceId issued within max_skew of the reference time (positive, counter not 0)';

-- TraceId has the tools snowflakes and shards have:
--   trace_id_lower(at), trace_id_upper(at)   the smallest and largest TraceId of the second
--       containing `at`: range scans over one period, for example
--       WHERE trace_id BETWEEN trace_id_lower(a) AND trace_id_upper(b)
--   trace_id_raise_mark(above)   gen_trace_id() issues only IDs of later seconds than `above`
--       (read in the period nearest the clock) from now on, for IDs carried in by a dump.
--       Superuser only by default: the mark is shared by every database of the server and never
--       moves back.
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

CREATE OR REPLACE FUNCTION gen_decimal_id() RETURNS bigint
    AS 'MODULE_PATHNAME', 'gen_decimal_id' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION gen_decimal_id() IS 'new DecimalId (counter * 10^10 + generator * 10^5 + launch id_gen.launch_id); never repeats on this server';

CREATE OR REPLACE FUNCTION decimal_id_counter(id bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'decimal_id_counter' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION decimal_id_counter(bigint) IS 'the counter of a DecimalId (1 to 922337202)';

CREATE OR REPLACE FUNCTION decimal_id_generator(id bigint) RETURNS integer
    AS 'MODULE_PATHNAME', 'decimal_id_generator' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION decimal_id_generator(bigint) IS 'the generator number of a DecimalId (0 to 99999)';

CREATE OR REPLACE FUNCTION decimal_id_launch(id bigint) RETURNS integer
    AS 'MODULE_PATHNAME', 'decimal_id_launch' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION decimal_id_launch(bigint) IS 'the launch number of a DecimalId (0 to 99999)';
