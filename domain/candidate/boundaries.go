package candidate

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"engram/domain/conversation"
	"engram/domain/memory"
)

// Reason is a machine-readable cause for not keeping something: a candidate the
// boundaries drop, or a message the pre-filter skips. It is stable (metrics label
// "skips by reason" and traces use it); Describe gives the human sentence.
type Reason string

// Reasons a candidate is dropped by Screen.
const (
	ReasonInvalid            Reason = "invalid"              // op, type, key, importance or ttl out of range
	ReasonEmptyContent       Reason = "empty_content"        // nothing (or almost nothing) to remember
	ReasonContentTooLong     Reason = "content_too_long"     // over the content limit
	ReasonNoiseKey           Reason = "noise_key"            // a known noise key family
	ReasonProfileSlot        Reason = "profile_slot"         // nickname, AI name, emoji: profile, not memory
	ReasonToolList           Reason = "tool_list"            // the assistant's tools
	ReasonSystemState        Reason = "system_state"         // system state, implementation details
	ReasonStreaming          Reason = "streaming_switch"     // streaming on/off
	ReasonShortTermCondition Reason = "short_term_condition" // a conditional rule valid only in a window
	ReasonWeatherSnapshot    Reason = "weather_snapshot"     // today's weather
	ReasonPeriodFinance      Reason = "period_finance"       // spending this month
	ReasonPeriodSummary      Reason = "period_summary"       // daily/weekly/monthly summaries
	ReasonReminder           Reason = "reminder"             // a one-off reminder
	ReasonTodo               Reason = "todo"                 // a to-do or errand
	ReasonSteps              Reason = "execution_steps"      // steps or commands of a task
	ReasonTimeWindow         Reason = "time_window"          // bound to tonight, tomorrow, this week…
	ReasonNotStatement       Reason = "not_a_statement"      // a question, not a fact
	ReasonWrongSlotValue     Reason = "wrong_slot_value"     // digits as a city, a name…
	ReasonLowConfidence      Reason = "low_confidence"       // below the minimum confidence
)

// Reasons a message is skipped by Prefilter: the message skip-reason vocabulary's
// (domain/conversation, skip.go).
const (
	ReasonEmptyMessage Reason = conversation.SkipEmptyMessage
	ReasonTooShort     Reason = conversation.SkipTooShort
	ReasonGreeting     Reason = conversation.SkipGreeting
	ReasonThanks       Reason = conversation.SkipThanks
	ReasonAck          Reason = conversation.SkipAcknowledgement
	ReasonFarewell     Reason = conversation.SkipFarewell
	ReasonQuestion     Reason = conversation.SkipQuestion
	ReasonCommand      Reason = conversation.SkipCommand
)

var reasonText = map[Reason]string{
	ReasonInvalid:            "the candidate is malformed (op, type, key, importance or ttl)",
	ReasonEmptyContent:       "the candidate has no content worth keeping",
	ReasonContentTooLong:     "the content is longer than a memory may be",
	ReasonNoiseKey:           "the key belongs to a known noise family",
	ReasonProfileSlot:        "identity-profile fields (nickname, AI name, emoji) belong to the profile, not to long-term memory",
	ReasonToolList:           "lists of the assistant's tools are system data, not user memory",
	ReasonSystemState:        "system state and implementation details are not user memory",
	ReasonStreaming:          "streaming switches are session settings, not user memory",
	ReasonShortTermCondition: "a conditional rule that only holds within a short time window",
	ReasonWeatherSnapshot:    "weather snapshots are outdated within hours",
	ReasonPeriodFinance:      "finance figures for a day, week or month are short-lived",
	ReasonPeriodSummary:      "day, week or month summaries are short-lived",
	ReasonReminder:           "one-off reminders are not long-term memory",
	ReasonTodo:               "to-dos and errands are not long-term memory",
	ReasonSteps:              "execution steps and commands are not long-term memory",
	ReasonTimeWindow:         "bound to a short time window (tonight, tomorrow, this week, this month…)",
	ReasonNotStatement:       "a question states nothing to remember",
	ReasonWrongSlotValue:     "the value cannot be right for this slot",
	ReasonLowConfidence:      "confidence is below the minimum for writing",
	ReasonRoutedToProfile:    "an identity-profile slot: it set the user's profile instead of becoming a long-term memory",
	ReasonInstructionLike:    "it reads as an instruction to the assistant (an override, a role marker, a fake delimiter…), not as something about the user",
	ReasonEmptyMessage:       "the message is empty",
	ReasonTooShort:           "the message is too short to state anything",
	ReasonGreeting:           "a greeting states nothing about the user",
	ReasonThanks:             "thanks state nothing about the user",
	ReasonAck:                "an acknowledgement states nothing about the user",
	ReasonFarewell:           "a farewell states nothing about the user",
	ReasonQuestion:           "a question that states nothing about the user",
	ReasonCommand:            "a request for the current turn only",
}

// Reasons lists every reason, screen and pre-filter, in a stable order (for metrics
// that pre-register their labels).
var Reasons = []Reason{
	ReasonInvalid, ReasonEmptyContent, ReasonContentTooLong, ReasonNoiseKey, ReasonProfileSlot,
	ReasonToolList, ReasonSystemState, ReasonStreaming, ReasonShortTermCondition,
	ReasonWeatherSnapshot, ReasonPeriodFinance, ReasonPeriodSummary, ReasonReminder, ReasonTodo,
	ReasonSteps, ReasonTimeWindow, ReasonNotStatement, ReasonWrongSlotValue, ReasonLowConfidence,
	ReasonInstructionLike, ReasonRoutedToProfile,
	ReasonEmptyMessage, ReasonTooShort, ReasonGreeting, ReasonThanks, ReasonAck, ReasonFarewell,
	ReasonQuestion, ReasonCommand,
}

// Describe is the human explanation of a reason.
func (r Reason) Describe() string {
	if t, ok := reasonText[r]; ok {
		return t
	}
	if rule, ok := strings.CutPrefix(string(r), string(ReasonInstructionLike)+":"); ok {
		return reasonText[ReasonInstructionLike] + " (rule " + rule + ")"
	}
	return string(r)
}

// Screening is the outcome of checking a candidate against the boundaries.
type Screening struct {
	Kept   bool
	Reason Reason // empty when kept
	Detail string // what exactly triggered it, for traces ("mentions \"tomorrow\"")
}

func keep() Screening { return Screening{Kept: true} }

func drop(r Reason, detail string) Screening {
	return Screening{Reason: r, Detail: detail}
}

// Defaults of the boundaries (LONG_TERM_MEMORY_MIN_CONFIDENCE 0.75).
const (
	DefaultMinConfidence = 0.75
	DefaultMinContentLen = 2
)

// Boundaries are the extraction boundaries: what may become a long-term memory.
// The zero value uses the defaults; set a field to change one bound.
type Boundaries struct {
	MinConfidence float64 // candidates below are dropped; 0 means DefaultMinConfidence
	MaxContentLen int     // characters (runes); 0 means memory.MaxContentLen
	MinContentLen int     // letters, digits or CJK characters; 0 means DefaultMinContentLen
}

// DefaultBoundaries are the boundaries with every default filled in.
func DefaultBoundaries() Boundaries { return Boundaries{}.withDefaults() }

func (b Boundaries) withDefaults() Boundaries {
	if b.MinConfidence == 0 {
		b.MinConfidence = DefaultMinConfidence
	}
	if b.MaxContentLen <= 0 || b.MaxContentLen > memory.MaxContentLen {
		b.MaxContentLen = memory.MaxContentLen
	}
	if b.MinContentLen <= 0 {
		b.MinContentLen = DefaultMinContentLen
	}
	return b
}

// Screen reports whether the candidate may become a long-term memory (or, for an
// identity-slot candidate, a profile update: see Route), and if not, the
// machine-readable reason (a Reason as a string). Check gives the detail too.
func (b Boundaries) Screen(c Candidate) (ok bool, reason string) {
	s := b.Check(c)
	return s.Kept, string(s.Reason)
}

// Check applies the boundaries in order: malformed fields, noise keys and profile
// slots (decided by the key), then what the content says (internal data, windows,
// reminders, to-dos, snapshots), then slot values, then confidence. The first rule
// that drops decides the reason, so a time-bound candidate with low confidence counts
// as time-bound: what it says matters more to the metrics than how sure the model was.
//
// A DELETE candidate only needs a valid key: retracting a memory is always allowed.
// An identity-slot candidate (TypeProfile) is checked as a slot instead (checkSlot):
// it is kept for Route, which sends it to the profile, never to memory.
func (b Boundaries) Check(c Candidate) Screening {
	b = b.withDefaults()
	if c.IsSlot() {
		return b.checkSlot(c)
	}
	key, s := screenKey(c)
	if !s.Kept || c.Op == OpDelete {
		return s
	}
	if s := b.checkFields(c); !s.Kept {
		return s
	}
	if s := screenContent(lowerASCII(Fold(c.Content))); !s.Kept {
		return s
	}
	if s := slotValue(key, c.Content); !s.Kept {
		return s
	}
	if c.Confidence < b.MinConfidence || c.Confidence != c.Confidence {
		return drop(ReasonLowConfidence, "confidence "+ftoa(c.Confidence)+" < "+ftoa(b.MinConfidence))
	}
	return keep()
}

// screenKey decides by the op and the key alone. A key memory.ParseKey refuses is
// still read for a profile field first, because "AI名字" names the profile even
// though it is no valid key.
func screenKey(c Candidate) (memory.Key, Screening) {
	switch c.Op {
	case "", OpAdd, OpUpdate, OpAppend, OpDelete:
	default:
		return memory.Key{}, drop(ReasonInvalid, "unknown op "+quote(string(c.Op)))
	}
	key, err := memory.ParseKey(c.Key)
	if err != nil {
		if s := profileKey(strings.ToLower(c.Key)); !s.Kept {
			return key, s
		}
		return key, drop(ReasonInvalid, "key "+quote(c.Key)+" is refused: "+err.Error())
	}
	if s := noiseKey(key); !s.Kept {
		return key, s
	}
	return key, profileKey(strings.ToLower(c.Key) + " " + key.String())
}

// checkFields refuses the fields of a written candidate that are out of range, and
// content too long or too short to be a memory.
func (b Boundaries) checkFields(c Candidate) Screening {
	if _, err := memory.ParseType(string(c.Type)); err != nil {
		return drop(ReasonInvalid, "unknown type "+quote(string(c.Type)))
	}
	if c.Importance < 0 || c.Importance > memory.MaxImportance {
		return drop(ReasonInvalid, "importance must be 1 to 5 (0 for the default)")
	}
	if c.TTLDays < 0 || c.TTLDays > memory.MaxTTLDays {
		return drop(ReasonInvalid, "ttl_days out of range")
	}
	if !utf8.ValidString(c.Content) {
		return drop(ReasonInvalid, "content is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(c.Content); n > b.MaxContentLen {
		return drop(ReasonContentTooLong, itoa(n)+" characters, limit "+itoa(b.MaxContentLen))
	}
	if contentRunes(c.Content) < b.MinContentLen {
		return drop(ReasonEmptyContent, "fewer than "+itoa(b.MinContentLen)+" letters or digits")
	}
	return keep()
}

// noiseKey applies memory.NoiseRuleFor to the normalised key, and again with '.' and
// '_' read as '-', because an extractor writing "weather.date.2024" or
// "tool_list" means the same families as the noise rules "weather-date_*" and "tool-*".
func noiseKey(key memory.Key) Screening {
	if r, ok := memory.NoiseRuleFor(key); ok {
		return drop(ReasonNoiseKey, r.Prefix+"*: "+r.Reason)
	}
	unified := strings.NewReplacer(".", "-", "_", "-").Replace(key.String())
	for _, r := range memory.NoiseRules {
		prefix := strings.ReplaceAll(r.Prefix, "_", "-")
		if strings.HasPrefix(unified, prefix) {
			return drop(ReasonNoiseKey, r.Prefix+"*: "+r.Reason)
		}
	}
	// Whole families whose first segment names internal data.
	first := unified
	if i := strings.IndexByte(first, '-'); i >= 0 {
		first = first[:i]
	}
	switch first {
	case "tool", "tools":
		return drop(ReasonToolList, "key family "+quote(first))
	case "system", "sys":
		return drop(ReasonSystemState, "key family "+quote(first))
	case "stream", "streaming":
		return drop(ReasonStreaming, "key family "+quote(first))
	}
	return keep()
}

func profileKey(lowKey string) Screening {
	unified := strings.NewReplacer(".", "-", " ", "-").Replace(lowKey)
	for _, p := range profileKeyParts {
		if strings.Contains(unified, p) {
			return drop(ReasonProfileSlot, "key names the profile field "+quote(p))
		}
	}
	// "emoji" alone is the profile's emoji; under reply/style/format it is a style
	// rule ("never use emojis in answers"), which is a legitimate constraint.
	segments := strings.FieldsFunc(unified, func(r rune) bool { return r == '-' || r == '_' })
	styleContext := false
	for _, s := range segments {
		switch s {
		case "reply", "replies", "style", "output", "format", "response", "responses", "answer", "answers", "writing":
			styleContext = true
		}
	}
	for _, s := range segments {
		if (s == "emoji" || s == "emojis") && !styleContext {
			return drop(ReasonProfileSlot, "key names the profile field \"emoji\"")
		}
	}
	for _, p := range profileKeyZH {
		if strings.Contains(lowKey, p) {
			return drop(ReasonProfileSlot, "key names the profile field "+quote(p))
		}
	}
	return keep()
}

// internalContent are the things a content may be about that are the assistant's
// or the system's, never the user's: the first list that matches decides.
var internalContent = []struct {
	reason Reason
	en, zh []string
	says   string
}{
	{ReasonProfileSlot, profileContentEN, profileContentZH, "content is about "},
	{ReasonToolList, toolListEN, toolListZH, "mentions "},
	{ReasonStreaming, streamingEN, streamingZH, "mentions "},
	{ReasonSystemState, systemEN, systemZH, "mentions "},
}

// content is a candidate's content as the content rules read it: folded and
// ASCII-lower-cased, with the two readings most of them weigh.
type content struct {
	low    string
	window string // the short time window it is bound to (TimeWindow), or ""
	cond   string // the condition it states ("if", "when it rains", "如果"), or ""
}

// shortLivedRules drop content that is true only for a while, in order: the first
// that drops decides the reason. A window on its own comes last, so that a
// reminder for tomorrow counts as a reminder.
var shortLivedRules = []func(content) Screening{
	shortTermCondition, weatherSnapshot, periodFigures, oneOffTask, executionSteps, timeBound,
}

// screenContent drops by what the content says. low is folded, ASCII-lower-cased.
func screenContent(low string) Screening {
	for _, r := range internalContent {
		if p := firstMatch(low, r.en, r.zh); p != "" {
			return drop(r.reason, r.says+quote(p))
		}
	}
	if strings.HasSuffix(strings.TrimSpace(low), "?") {
		return drop(ReasonNotStatement, "ends with a question mark")
	}
	c := content{low: low, window: TimeWindow(low), cond: firstMatch(low, conditionEN, conditionZH)}
	for _, rule := range shortLivedRules {
		if s := rule(c); !s.Kept {
			return s
		}
	}
	return keep()
}

// shortTermCondition: a rule that holds only within a window ("if it rains
// tonight…") expires with it.
func shortTermCondition(c content) Screening {
	if c.window != "" && c.cond != "" {
		return drop(ReasonShortTermCondition, quote(c.cond)+" within "+quote(c.window))
	}
	return keep()
}

// weatherSnapshot: weather for a window, "now", or a reading in degrees is stale
// within hours; weather under a condition ("when it rains…") is a standing rule.
func weatherSnapshot(c content) Screening {
	w := firstMatch(c.low, weatherEN, weatherZH)
	if w == "" || c.cond != "" {
		return keep()
	}
	if c.window != "" {
		return drop(ReasonWeatherSnapshot, quote(w)+" for "+quote(c.window))
	}
	if s := firstMatch(c.low, snapshotEN, snapshotZH); s != "" {
		return drop(ReasonWeatherSnapshot, quote(w)+" "+quote(s))
	}
	if strings.ContainsAny(c.low, "0123456789") {
		if d := degreesRe.FindString(c.low); d != "" {
			return drop(ReasonWeatherSnapshot, "a reading of "+quote(d))
		}
	}
	return keep()
}

// periodFigures: money spent in a window or a short period, and summaries of a day,
// week or month, are outdated when the period ends. A habit stated per period
// ("I save 500 monthly") is not a figure for one period.
func periodFigures(c content) Screening {
	period := firstMatch(c.low, periodEN, periodZH)
	summary := firstMatch(c.low, summaryEN, summaryZH)
	if f := firstMatch(c.low, financeEN, financeZH); f != "" && (c.window != "" || summary != "" && period != "" || isShortPeriod(period)) {
		return drop(ReasonPeriodFinance, quote(f)+" for a period")
	}
	if summary != "" && period != "" {
		return drop(ReasonPeriodSummary, quote(period)+" "+quote(summary))
	}
	return keep()
}

// oneOffTask drops reminders, to-dos and errands. One with a condition or a
// recurrence and no window is a long-term constraint ("下雨时提醒我带伞", "每天提醒我
// 喝水"); without either it is a one-off.
func oneOffTask(c content) Screening {
	if c.window == "" && (c.cond != "" || firstMatch(c.low, recurrenceEN, recurrenceZH) != "") {
		return keep()
	}
	if r := firstMatch(c.low, reminderEN, reminderZH); r != "" {
		return drop(ReasonReminder, "mentions "+quote(r))
	}
	if t := firstMatch(c.low, todoEN, todoZH); t != "" {
		return drop(ReasonTodo, "mentions "+quote(t))
	}
	return errand(c.low)
}

// errand finds "need to buy milk" and "要去买菜"; "记得我…" asks to remember
// something about the user, which is no errand.
func errand(low string) Screening {
	if strings.Contains(low, " to ") {
		if e := errandENRe.FindString(low); e != "" {
			return drop(ReasonTodo, "an errand: "+quote(e))
		}
	}
	if hasCJK(low) {
		if e := errandZHRe.FindString(low); e != "" && !strings.Contains(low, "记得我") {
			return drop(ReasonTodo, "an errand: "+quote(e))
		}
	}
	return keep()
}

// executionSteps: the steps or commands of one task are not about the user. The
// expression runs only where a cheap anchor occurs (mayBeSteps).
func executionSteps(c content) Screening {
	if mayBeSteps(c.low) {
		if s := stepsRe.FindString(c.low); s != "" {
			return drop(ReasonSteps, "looks like steps or a command: "+quote(strings.TrimSpace(s)))
		}
	}
	return keep()
}

func timeBound(c content) Screening {
	if c.window != "" {
		return drop(ReasonTimeWindow, "mentions "+quote(c.window))
	}
	return keep()
}

func isShortPeriod(p string) bool {
	switch p {
	case "", "daily", "weekly", "monthly", "每日", "每周", "每月":
		return false
	}
	return true
}

// TimeWindow returns the phrase that ties text to a short window around now
// ("tomorrow", "this week", "今晚", "下周", "in 20 minutes"), or "" if none. Phrases
// that start a standing rule ("from today on", "从明天起") and habitual mentions
// ("on weekends", "每周五", "周末喜欢") are not windows.
func TimeWindow(text string) string {
	low := withoutRuleStarts(lowerASCII(Fold(text)))
	if w := englishWindow(low); w != "" {
		return w
	}
	if !hasCJK(low) {
		return ""
	}
	return chineseWindow(low)
}

// withoutRuleStarts blanks the phrases that start a standing rule, so that the
// "today" of "from today on" is not read as a window.
func withoutRuleStarts(low string) string {
	for _, s := range windowStartsEN {
		low = strings.ReplaceAll(low, s, " ")
	}
	for _, s := range windowStartsZH {
		low = strings.ReplaceAll(low, s, "，")
	}
	return low
}

// The regular expressions run only where one of their cheap anchors occurs: this is
// called for every candidate and every message.
var (
	countedWindowENAnchors = []string{"day", "min", "hour", "hr", "week"}
	countedWindowZHAnchors = []string{"后", "内"}
	weekdayZHAnchors       = []string{"周", "星期", "礼拜"}
)

func englishWindow(low string) string {
	if p := firstWordMatch(low, timeWindowEN); p != "" {
		return p
	}
	if containsAny(low, countedWindowENAnchors) {
		return timeWindowENRe.FindString(low)
	}
	return ""
}

func chineseWindow(low string) string {
	for _, p := range timeWindowZH {
		if strings.Contains(low, p) {
			return p
		}
	}
	if containsAny(low, countedWindowZHAnchors) {
		if m := countedWindowZHRe.FindString(low); m != "" {
			return m
		}
	}
	if containsAny(low, weekdayZHAnchors) {
		if m := firstOneOffDay(weekdayZHRe, low); m != "" {
			return m
		}
		return firstOneOffDay(weekendZHRe, low)
	}
	return ""
}

// firstOneOffDay returns the first match of a weekday or weekend expression that
// names one day rather than a habit: its first group is "every" ("每周五") and its
// second a habit word ("周五一般…", "周末喜欢"), both empty for a one-off.
func firstOneOffDay(re *regexp.Regexp, low string) string {
	for _, m := range re.FindAllStringSubmatch(low, -1) {
		if m[1] == "" && m[2] == "" {
			return m[0]
		}
	}
	return ""
}

func containsAny(s string, parts []string) bool {
	for _, p := range parts {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// slotValue drops digits-only values in place and name slots.
func slotValue(key memory.Key, content string) Screening {
	parts := strings.FieldsFunc(key.String(), func(r rune) bool { return r == '.' || r == '-' })
	isLocation, isName := false, false
	for _, p := range parts {
		isLocation = isLocation || locationSlots[p]
		isName = isName || nameSlots[p]
	}
	if onlyDigits(content) {
		return drop(ReasonWrongSlotValue, "the content is only digits")
	}
	if !isLocation && !isName {
		return keep()
	}
	v := extractSlotValue(content)
	if v != "" && onlyDigits(v) {
		slot := "a place"
		if isName {
			slot = "a name"
		}
		return drop(ReasonWrongSlotValue, quote(v)+" cannot be "+slot)
	}
	return keep()
}

// extractSlotValue takes the part of a statement after its last value marker
// ("User lives in 12345" → "12345"; "用户住在123" → "123"; "city: 42" → "42").
func extractSlotValue(content string) string {
	s := Fold(content)
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		return trimPunct(s[i+1:])
	}
	low := lowerASCII(s)
	for _, m := range slotValueMarkers {
		if i := strings.LastIndex(low, m); i >= 0 {
			return trimPunct(s[i+len(m):])
		}
	}
	return ""
}

func onlyDigits(s string) bool {
	seen := false
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			seen = true
		case unicode.IsLetter(r):
			return false
		}
	}
	return seen
}

// firstMatch returns the first English (word-bounded) or Chinese phrase found in low.
func firstMatch(low string, en, zh []string) string {
	if p := firstWordMatch(low, en); p != "" {
		return p
	}
	if !hasCJK(low) {
		return ""
	}
	for _, p := range zh {
		if strings.Contains(low, p) {
			return p
		}
	}
	return ""
}

// mayBeSteps is the cheap test in front of stepsRe.
func mayBeSteps(low string) bool {
	for _, a := range []string{"step", "步", "首先", "first,", "```", "$ ", "install", "go get", "build", "sudo"} {
		if strings.Contains(low, a) {
			return true
		}
	}
	return false
}
