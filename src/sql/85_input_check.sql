-------------------------------------------------------------------------------
-- Input validity checks: PostgreSQL 16's pg_input_is_valid() and pg_input_error_info() on every
-- server version (15 has neither), for any type.
-- STABLE as core's (an input function may read settings, such as timestamptz's TimeZone).
-- PARALLEL UNSAFE unlike core's: on 15 the input function runs inside a subtransaction, which
-- cannot start in parallel mode (a label cannot differ between server versions).
-------------------------------------------------------------------------------
CREATE FUNCTION id_gen_input_is_valid(value text, type_name text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'id_gen_input_is_valid' LANGUAGE C STABLE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION id_gen_input_is_valid(text, text) IS
    'whether value is valid text input for the named type, as pg_input_is_valid() (PostgreSQL 16) on every version';

CREATE FUNCTION id_gen_input_error_info(value text, type_name text,
        OUT message text, OUT detail text, OUT hint text, OUT sql_error_code text) RETURNS record
    AS 'MODULE_PATHNAME', 'id_gen_input_error_info' LANGUAGE C STABLE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION id_gen_input_error_info(text, text) IS
    'the error value would raise as text input for the named type (all NULL if none), as pg_input_error_info() (PostgreSQL 16) on every version';
