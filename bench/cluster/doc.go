// Package cluster is the fleet harness of issue 18 (item 6): on loopback, a
// redis-server, three catalogued replicas on 127.0.0.2-4 sharing it
// (-store) and following the fleet's catalogue from a directory origin
// (-origin, the first catalogue published with catalogue publish before
// they start), and HAProxy from Debian in front with PROXY protocol v2 and
// health checks; clients bound to distinct 127.x addresses stand for
// distinct networks. Its test, built with the tag cluster (run.sh), checks
// what a client of the fleet sees: exact counting across replicas, one key
// for 50 concurrent clicks, one acceptance of a payment replayed to every
// replica, revoke propagation, a snapshot rollout and its rollback under
// load through HAProxy (every replica converges, no request fails, no
// connection sees the new catalogue then the old; the convergence time is
// logged), a kill -9 of a replica under load, Redis stopped and restarted.
//
// Nothing imports this package.
package cluster
