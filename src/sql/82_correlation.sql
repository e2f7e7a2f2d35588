-------------------------------------------------------------------------------
-- Correlation IDs. The setting id_gen.correlation_id is
-- defined by the library; these functions read and change it. Every function that can set it is
-- VOLATILE and PARALLEL UNSAFE (a parameter cannot be set during a parallel operation).
-------------------------------------------------------------------------------

CREATE FUNCTION correlation_id() RETURNS text
    AS 'MODULE_PATHNAME', 'correlation_id' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION correlation_id() IS 'the current correlation ID (id_gen.correlation_id); when there is none, a fresh one (a UUIDv7), set for the rest of the transaction';

CREATE FUNCTION correlation_extend(parent text DEFAULT NULL, method text DEFAULT 'counter') RETURNS text
    AS 'MODULE_PATHNAME', 'correlation_extend' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION correlation_extend(text, text) IS 'a child of the parent (NULL: the current ID) for spawned work: parent.1, parent.2, ... (method counter) or parent.<10 random characters> (method random)';

CREATE FUNCTION correlation_replace(id text, is_local boolean DEFAULT false) RETURNS text
    AS 'MODULE_PATHNAME', 'correlation_replace' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION correlation_replace(text, boolean) IS 'makes id the current correlation ID (for the session, or the transaction if is_local), logging the two linking lines';

CREATE FUNCTION correlation_combine(other text, is_local boolean DEFAULT false) RETURNS text
    AS 'MODULE_PATHNAME', 'correlation_combine' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION correlation_combine(text, boolean) IS 'makes <current>+<other> the current correlation ID, logging the two linking lines';

CREATE FUNCTION correlation_from_traceparent(traceparent text, is_local boolean DEFAULT false) RETURNS text
    AS 'MODULE_PATHNAME', 'correlation_from_traceparent' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION correlation_from_traceparent(text, boolean) IS 'makes the trace-id of a W3C traceparent the current correlation ID, logging the two linking lines';

CREATE FUNCTION correlation_counter_storage() RETURNS text
    AS 'MODULE_PATHNAME', 'correlation_counter_storage' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION correlation_counter_storage() IS 'where correlation_extend() counts children: shared memory, dsm registry or per backend';

CREATE FUNCTION traceparent_parse(traceparent text, OUT version text, OUT trace_id text, OUT parent_id text,
                                  OUT flags text, OUT sampled boolean)
    AS 'MODULE_PATHNAME', 'traceparent_parse' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION traceparent_parse(text) IS 'the fields of a W3C traceparent; 22P02 if it is not valid';

CREATE FUNCTION traceparent_valid(traceparent text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'traceparent_valid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION traceparent_valid(text) IS 'whether a text is a valid W3C traceparent';

CREATE FUNCTION traceparent_child(traceparent text) RETURNS text
    AS 'MODULE_PATHNAME', 'traceparent_child' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION traceparent_child(text) IS 'a child traceparent: the same trace-id, a new random parent-id, version 00';
