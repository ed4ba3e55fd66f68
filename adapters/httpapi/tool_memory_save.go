package httpapi

import (
	"context"

	"engram/app/memories"
	"engram/app/tools"
	"engram/domain/memory"
)

// KeyArgument is the {key} of the memory operations' paths as a tool argument,
// with KeyPath's limits.
type KeyArgument struct {
	Key string `json:"key" minLength:"1" maxLength:"512" doc:"The memory's key."`
}

// keyDoc tells the model what a key is for.
const keyDoc = "The topic of the memory as a short, stable name such as `diet`, `home-city` or `reply-language`: " +
	"letters and digits of any script, '-', '_' and '.', at most 160 characters once lower-cased. One memory per key."

type memorySaveArguments struct {
	KeyArgument
	SaveMemoryRequest
}

// MemorySaver is what memory_save needs.
type MemorySaver interface {
	Save(ctx context.Context, cmd memories.Save) (memories.SaveResult, error)
}

// MemorySaveTool is memory_save: PUT /v1/users/{user}/memories/{key} as a tool.
func MemorySaveTool(svc MemorySaver) Tool {
	return defineTool(toolSpec{
		name: "memory_save",
		description: "Save one long-term memory about the user under a key, creating it or replacing what that key held. " +
			"Returns the saved memory. " + tools.WhatToSave + " " + tools.OneMemoryPerTopic,
		docs: map[string]string{
			"key": keyDoc + " Saving an existing key replaces its memory.",
			"type": "preference: stable likes, habits and styles; fact: facts still true in 30 days; goal: long-term goals and plans; " +
				"project: ongoing projects; constraint: standing rules, including explicit \"from now on\" instructions.",
			"content":    "The memory as one self-contained statement, at most 1000 characters, e.g. \"Is vegetarian and avoids eggs\".",
			"importance": "How much it matters to the user, 1 (minor) to 5 (essential); default 3.",
			"confidence": "How sure you are that it is true and lasting, 0 to 1; default 0.8.",
			"ttl_days":   "Days until it expires, when the memory has a natural end; 0 for never; leave it out for the default.",
			"pinned":     "True for something the user wants remembered in every conversation whatever the topic (standing rules and constraints are already); leave it out to keep the current pin.",
		},
	}, func(ctx context.Context, sc memory.Scope, a *memorySaveArguments) (Memory, error) {
		res, err := svc.Save(ctx, memories.Save{Scope: sc, Key: a.Key, Draft: a.draft()})
		if err != nil {
			return Memory{}, err
		}
		return fromMemory(res.Memory), nil
	})
}
