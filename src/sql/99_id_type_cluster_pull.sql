-- A node Citus is adding to a cluster: the coordinator's created ID types (id_type_cluster_pull(),
-- 90_id_types.sql). Install script only: a node updated from 0.2.0 has its types already.
-- A coordinator this node cannot ask does not stop the install (a cluster without created types
-- needs nothing from it): a warning says why, and Citus then fails at the first table that uses
-- a created type ("type ... does not exist").
DO $$
BEGIN
    PERFORM @extschema@.id_type_cluster_pull();
EXCEPTION WHEN object_not_in_prerequisite_state THEN
    RAISE WARNING '%', SQLERRM USING DETAIL = 'This node has none of the coordinator''s created ID types.',
        HINT = 'Make the coordinator reachable from this node, then run SELECT id_type_cluster_pull(); here.';
END
$$;
