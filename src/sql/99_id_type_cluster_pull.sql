-- A node Citus is adding to a cluster: the coordinator's created ID types (id_type_cluster_pull(),
-- 90_id_types.sql). Install script only: a node updated from 0.2.0 has its types already. A
-- coordinator this node cannot ask fails the install (55000, naming it), and so the node's
-- addition: going on would leave the node without types the cluster's tables may need.
SELECT @extschema@.id_type_cluster_pull();
