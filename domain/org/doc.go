// Package org is a tenant's organisation graph: who each user is
// (display name, department, position), who manages whom, and what follows from it —
// manager chains are transitive, a chain never loops, and a user's profile may be
// seen by the user and by any manager above them, nobody else. It also turns names
// into the keys that name resolution matches ("小明", "Xiao Ming", "王小明" find the
// same person).
//
// Pure Go, standard library only: storage and the romanisation of Chinese names
// come in through plain values and functions.
package org
