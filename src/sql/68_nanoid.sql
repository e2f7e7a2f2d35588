-------------------------------------------------------------------------------
-- NanoID: random text over an alphabet, uniform by mask-and-reject sampling, from the
-- backend's block-buffered kernel CSPRNG. No type: NanoIDs are opaque text.
-------------------------------------------------------------------------------

-- VOLATILE; PARALLEL SAFE (each backend draws from its own CSPRNG buffer). STRICT: a NULL size or
-- alphabet gives NULL. Size 1 to 255; alphabet 2 to 255 distinct single-byte characters; 22023
-- otherwise.
CREATE OR REPLACE FUNCTION @extschema@.gen_nanoid(
        size integer DEFAULT 21,
        alphabet text DEFAULT 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-')
    RETURNS text
    AS 'MODULE_PATHNAME', 'gen_nanoid' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.gen_nanoid(integer, text) IS
    'new NanoID: size (1..255) characters drawn uniformly from the alphabet (2..255 distinct single-byte characters; default the URL-safe 64)';
