// Package rules is the offline extractor and refiner: stage 1 and stage 2 of the
// extraction pipeline without a model, so the embedded default still learns. It
// implements ports.Extractor with trigger phrases and patterns in English and
// Chinese, and ports.Refiner with key matching and lexical similarity.
//
// The extractor only reads user messages and only patterns anchored on the user
// ("I …", "my …", "我…", "记住…", "以后都…"): "my friend likes jazz" states nothing
// about the user and yields nothing. Every message goes through candidate.Prefilter
// first and every candidate through candidate.Boundaries last, so "Remind me to
// bring an umbrella tomorrow" yields nothing.
//
// Keys follow the scheme documented in domain/candidate (keys.go):
//
//	name                                         my name is / 我叫 ("call me" / 叫我 is a nickname: profile, dropped)
//	allergy.<object>                             allergic to / 对…过敏
//	diet, food.avoids.<object>                   vegetarian / 吃素 / don't eat / 不吃
//	<area>.likes|dislikes|prefers.<object>       like, love, hate, prefer / 喜欢, 讨厌, 更喜欢
//	favorite.<thing>                             my favorite X is / 我最喜欢的X是
//	home.city, home.location, hometown, birthplace, birth.year, birthday
//	work.place, work.role, work.field            work at / as / in, I'm a <profession>, 我是…(职业)
//	family.<relation>, family.marital, pet.<animal>
//	goal.<object>, goal.become.<object>, learning.<object>, project.<name>
//	habit.<object>, language.speaks.<language>
//	reply.language, reply.length, reply.style.<aspect>, rule.<object>, rule.remind.<action>
//	note.<object>                                "remember …" that fits no pattern
//
// <area> comes from a small lexicon (food, drink, music, film, reading, travel, sport,
// hobby; otherwise interest). <object> is an ASCII slug of the user's words; Chinese
// objects use a fixed translation when the lexicon has one (川菜 → sichuan_food) and
// a hashed slug (h + 8 hex digits) otherwise, so keys stay ASCII and stable.
//
// Retractions ("I no longer like jazz", "I'm no longer vegetarian", "我不再喜欢…",
// "我不吃素了") become DELETE candidates for the key the positive statement fills.
//
// Content is the user's own statement in the third person ("User is allergic to
// peanuts.", "用户对花生过敏。"); standing rules keep their imperative form ("From now
// on, answer in English.", "以后都用中文回复用户。"). Confidence and importance come
// from the pattern: an explicit "remember" gives 0.95 and one more importance point,
// allergies importance 5, hedges ("I think", "可能") cost 0.2 confidence, which puts
// a hedged preference below the default minimum.
//
// It imports domain and ports only.
package rules
