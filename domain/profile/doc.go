// Package profile is a user's profile (the user_profiles table): what the user
// declared (display name, department, position, role and work-style tags, language,
// tone, time zone, identity slots such as nickname or the assistant's name, each
// with where it came from) and what engram derives from their conversations,
// memories and activity (work hours, common topics, expertise, favourite
// workflows, task statistics). It holds the derivations as pure functions, the
// activity events that feed them, the facts an evaluation report is written from,
// and the 用户画像 block injected into prompts.
//
// Pure Go, standard library only (the time zone database is embedded so work
// hours are computed the same everywhere). Text analysis comes in as a function.
package profile
