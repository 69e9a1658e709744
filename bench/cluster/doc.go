// Package cluster is the fleet harness of issue 18 (item 6): on loopback, a
// redis-server, three catalogued replicas on 127.0.0.2-4 sharing it
// (-store), and HAProxy from Debian in front with PROXY protocol v2 and
// health checks; clients bound to distinct 127.x addresses stand for
// distinct networks. Its test, built with the tag cluster (run.sh), checks
// what a client of the fleet sees of the access state: exact counting
// across replicas, one key for 50 concurrent clicks, one acceptance of a
// payment replayed to every replica, revoke propagation, a kill -9 of a
// replica under load, Redis stopped and restarted. The snapshot rollout
// check (item 5) is to be added beside them.
//
// Nothing imports this package.
package cluster
