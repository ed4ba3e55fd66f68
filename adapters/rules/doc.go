// Package rules is the offline extractor, refiner and summarizer: stage 1 and
// stage 2 of the extraction pipeline and the recursive session summary without a
// model, so the embedded default still learns and still folds long sessions. It
// implements ports.Extractor with trigger phrases and patterns in English and
// Chinese, ports.Refiner with key matching and lexical similarity, and
// ports.Summarizer by keeping the sentences that carry decisions, names, numbers
// and dates (summarizer.go, word lists in summary/).
//
// The extractor only reads user messages and only patterns anchored on the user
// ("I …", "my …", "we …", "我…", "记住…", "以后都…"): "my friend likes jazz" states
// nothing about the user and yields nothing. A relative's name and relation are facts
// about the user ("My daughter Emma loves horses" → the user has a daughter, Emma);
// the relative's tastes are not. Every message goes through candidate.Prefilter
// first and every candidate through candidate.Boundaries last, so "Remind me to
// bring an umbrella tomorrow" yields nothing.
//
// Patterns (patterns/en.yaml, patterns/zh.yaml, rules as data): one list per script,
// most specific first; each names its key rule, content and builder from the tables
// in patterns.go, and the files are checked when the package loads.
//
// Stance (stance/*.yaml, rules as data): fillers, intensifiers and hedges are
// taken out before any pattern reads a sentence ("I am allergic to peanuts,
// seriously." → allergy.peanuts, never allergy.seriously; "我真的对花生过敏"), and a
// clause that denies ("I'm not allergic to…", "我对花生不过敏"), supposes ("if I
// were vegan", "要是我…"), doubts ("I might be…") or reports someone else ("my
// friend is vegan", "我朋友对花生过敏") gives nothing. Importance is put into its
// key family's band (candidate.CalibrateImportance).
//
// Clauses: a pattern is tried at each clause start; when none fits there, at the
// next first-person sub-clause ("…last year and I work as a nurse", "…所以我…"), so
// one clause that states nothing or something time-bound does not hide the next. A
// clause without a subject after one of the user's statements is read with the user
// as subject ("我结婚了，有两个孩子", "I live in Berlin and work at Siemens"); after a
// statement about a relative, only a clause naming another relative is
// ("我儿子四岁，女儿七岁"). A window that qualifies a statement drops it ("I live in
// Paris for now", "I'm vegetarian this week"); one that opens the next statement does
// not ("I'm a nurse and tomorrow I start a new shift", "我是护士明天要上夜班"). Dates
// that only date a fact stay out of the key ("I moved to Berlin last year" →
// home.city, "training for a marathon in April" → goal.marathon).
//
// Keys follow the scheme documented in domain/candidate (keys.go):
//
//	name, age                                    my name is / 我叫, I'm 29 / 我今年29岁
//	allergy.<object>, health.<condition>         allergic to / 对…过敏, I have asthma / 我有高血压
//	diet, food.avoids.<object>                   vegetarian, on a keto diet / 吃素 / don't eat / 不吃
//	<area>.likes|dislikes|prefers.<object>       like, love, hate, prefer, not a fan of / 喜欢, 讨厌, 更喜欢
//	favorite.<thing>                             my favorite X is, Jazz is my favorite music / 我最喜欢的X是
//	home.city, home.location, hometown, birthplace, birth.year, birthday
//	                                             live in, moved to, 住在, 搬到了, grew up in, 在…长大
//	work.place, work.role, work.field, work.status, education.school
//	                                             work at / as / in, I'm a <profession> at X, 我是X的<职业>, retired / 退休了
//	family.<relation>                            one slot for wife, husband, partner, mother, father…: "My wife is called Anna"
//	family.<relation>.<name>                     one memory per child or sibling: "My daughter Emma…", "我女儿叫小美"
//	family.marital, pet.<animal>                 married, single / 结婚了, we have two cats / 我们家养了两只猫
//	goal.<object>, goal.become.<object>, learning.<object>, project.<name>
//	                                             training for a marathon / 准备马拉松, saving up to buy a house
//	habit.<object>, language.speaks.<language>   I go swimming every Saturday / 我每周六去游泳, I speak / 我会说
//	reply.language, reply.length, reply.style.<aspect>, rule.<object>, rule.remind.<action>
//	note.<object>                                "remember …" that fits no pattern
//
// <area> comes from a small lexicon (food, drink, music, film, reading, travel, sport,
// hobby; otherwise interest). <object> is an ASCII slug of the user's words; Chinese
// objects use a fixed translation when the lexicon has one (川菜 → sichuan_food) and
// a hashed slug (h + 8 hex digits) otherwise, so keys stay ASCII and stable. A Chinese
// object without a translation takes its area from a known word inside it
// ("墨西哥美食" → food.likes.h…, "去阿尔卑斯山徒步" → travel.likes.h…). A liked way of
// answering is a reply slot ("I prefer short, direct answers" → reply.length).
//
// Identity slots are not memories: "Please call me Captain from now on",
// "叫我小王", "I'll call you Jarvis", "use 🐱 as my emoji", "stop calling me Captain"
// come out as slot candidates (type profile, key profile.<slot>, the value as
// content) for the pipeline to route to the profile. Their rules are data, in
// slots/en.yaml and slots/zh.yaml. A standing reply-language or tone rule ("From
// now on reply in Chinese") gives both: the constraint memory and the language or
// tone slot.
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
