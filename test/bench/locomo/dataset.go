package main

import "engram/test/locomodata"

// The data set and its protocol live in test/locomodata, shared with the context
// benchmark.
type (
	Turn         = locomodata.Turn
	Question     = locomodata.Question
	Conversation = locomodata.Conversation
)

var categoryNames = locomodata.CategoryNames

func loadLoCoMo(path string) ([]Conversation, error) { return locomodata.Load(path) }
