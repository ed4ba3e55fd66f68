package instruction

// rules are every rule in priority order: when several fire, the first names the
// verdict. Markers and delimiters come first, because they say the most about who
// wrote what follows.
var rules = mustCompile(
	anyRoleMarker, enRoleMarker, zhRoleMarker,
	enFakeDelimiter, zhFakeDelimiter,
	enOverride, enOverrideCooccurrence, zhOverride, mixedOverride,
	enAuthority, zhAuthority,
	enJailbreak, zhJailbreak,
	enPersona, zhPersona, mixedPersona,
	enPromptLeak, zhPromptLeak, mixedPromptLeak,
	anyExfiltration, enExfiltration, zhExfiltration,
	enLinkInjection, zhLinkInjection,
	enToolInvocation, zhToolInvocation,
)
