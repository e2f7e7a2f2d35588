-------------------------------------------------------------------------------
-- idempotency_purge(), 0.3.0: a call is one bounded step of a purge round (at most batch_size
-- keys deleted, at most ten rows examined per key of batch_size) and says whether the round is
-- done. Part of the install script and of the 0.2.0 -> 0.3.0 upgrade script.
--
-- 0.2.0's returned bigint (the keys deleted; fewer than batch_size meant done, which a bounded
-- call cannot promise). A function's result type cannot be changed in place, so the upgrade
-- script drops 0.2.0's function before this piece (src/update/0.2.0--0.3.0.sql; never here: the
-- install script must fail, as any CREATE FUNCTION does, on a function of the same signature
-- that is not the extension's) and creates it again here.
-------------------------------------------------------------------------------

CREATE FUNCTION idempotency_purge(older_than interval DEFAULT NULL, batch_size integer DEFAULT 1000,
                                  OUT deleted bigint, OUT done boolean)
    AS 'MODULE_PATHNAME', 'idempotency_purge' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idempotency_purge(interval, integer) IS 'delete expired (and with older_than idle) idempotency keys, one bounded step of a round per call: how many, and whether the round is done';
REVOKE ALL ON FUNCTION idempotency_purge(interval, integer) FROM PUBLIC;
