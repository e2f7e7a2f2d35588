-------------------------------------------------------------------------------
-- idempotency_purge(), 0.3.0: a call is one bounded step of a purge round (at most batch_size
-- keys deleted, at most ten rows examined per key of batch_size) and says whether the round is
-- done. Part of the install script and of the 0.2.0 -> 0.3.0 upgrade script.
--
-- 0.2.0's returned bigint (the keys deleted; fewer than batch_size meant done, which a bounded
-- call cannot promise). A function's result type cannot be changed in place, so the upgrade
-- drops it and creates it again: grants of EXECUTE on it are dropped with it (CHANGELOG).
-------------------------------------------------------------------------------

DROP FUNCTION IF EXISTS idempotency_purge(interval, integer);
CREATE FUNCTION idempotency_purge(older_than interval DEFAULT NULL, batch_size integer DEFAULT 1000,
                                  OUT deleted bigint, OUT done boolean)
    AS 'MODULE_PATHNAME', 'idempotency_purge' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idempotency_purge(interval, integer) IS 'delete expired (and with older_than idle) idempotency keys, one bounded step of a round per call: how many, and whether the round is done';
REVOKE ALL ON FUNCTION idempotency_purge(interval, integer) FROM PUBLIC;
