package candidate

import "regexp"

// The word lists behind the boundaries and the pre-filter, English and Chinese. All
// English entries are lower case and matched at word boundaries on lower-cased text;
// Chinese entries are matched as substrings.

// timeWindowEN are phrases that tie a statement to a short window around now.
var timeWindowEN = []string{
	"tonight", "tomorrow", "tmr", "today", "later today", "earlier today",
	"this morning", "this afternoon", "this evening", "tomorrow morning",
	"this week", "next week", "this month", "next month", "end of the month",
	"end of the week", "end of the day",
	"this weekend", "next weekend", "over the weekend", "this coming weekend",
	"in an hour", "in half an hour", "in a few minutes", "in a few hours", "in a minute",
	"in a bit", "right now", "at the moment", "for now", "for the time being",
	"yesterday", "last night", "the next few days", "next few days", "the coming days",
	"these few days", "temporarily", "this time", "for a few days", "for a couple of days",
	"the next couple of weeks", "the next few weeks", "next couple of weeks", "in a week", "in a fortnight",
}

// timeWindowENRe catches counted and weekday windows: "in 20 minutes", "in 3 days",
// "in two weeks", "this Friday", "next monday", "on Monday" (a single day, not "on
// Mondays"). A few weeks is as short as "next week"; months and years are not.
var timeWindowENRe = regexp.MustCompile(`\b(in|within|after) (\d+|two|three|four|five|ten|twenty|thirty) (minutes?|mins?|hours?|hrs?|days?)\b|\b(in|within|after) (a|one|two|three|a couple of|a few|\d) weeks?\b|\b(this|next|coming|on|by|until) (monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b`)

// timeWindowZH are Chinese phrases for the same windows.
var timeWindowZH = []string{
	"明后天", "大后天", "今晚", "今天", "今日", "今早", "今晨", "今夜", "明天", "明日", "明早", "明晚", "后天",
	"这周", "本周", "下周", "这星期", "本星期", "下星期", "这个星期", "下个星期", "这礼拜", "下礼拜",
	"这个月", "本月", "下个月", "下月", "月底", "这周末", "本周末", "下周末", "这个周末",
	"昨天", "昨晚", "前天", "刚才", "待会", "等会", "等一下", "一会儿", "稍后", "马上",
	"这几天", "这两天", "最近几天", "近几天", "未来几天", "接下来几天", "近两天",
	"暂时", "临时", "这次", "这一次",
}

// timeWindowZHRe catches counted windows ("20分钟后", "两小时内") and single weekdays
// ("周五", "星期三") that are not habitual ("每周五").
var (
	countedWindowZHRe = regexp.MustCompile(`[0-9一二两三四五六七八九十半几]+ ?(个)?(分钟|小时|钟头|天|周|星期|礼拜)(后|之后|以后|内|之内)`)
	weekdayZHRe       = regexp.MustCompile(`(每个?)?(?:周|星期|礼拜)[一二三四五六日天](都|一般|通常|常|总|的时候)?`)
	weekendZHRe       = regexp.MustCompile(`(每个?|每到|一到|平时|通常)?周末(都|一般|通常|常|总|喜欢|的时候)?`)
)

// windowStarts mark the start of a standing rule, not a window: "from today on I am
// vegetarian" is long-term although it says "today".
var windowStartsEN = []string{
	"from today", "starting today", "as of today", "from tomorrow", "starting tomorrow",
	"as of tomorrow", "from this week", "starting this week", "from next week",
	"starting next week", "from this month", "starting next month", "from next month",
}

var windowStartsZH = []string{
	"从今天起", "从今天开始", "从今日起", "今天起", "自今天起", "从明天起", "从明天开始", "明天起",
	"从下周起", "从下周开始", "从这个月起", "从下个月起", "从下个月开始", "从本月起",
}

// conditionEN/ZH mark a conditional rule ("when it rains, remind me…").
var conditionEN = []string{"if", "when", "whenever", "in case", "every time", "each time", "unless", "once"}
var conditionZH = []string{"如果", "要是", "假如", "的话", "的时候", "时候", "每当", "每次", "一旦", "时,", "时提醒", "时请", "时要", "时记得", "时告诉", "时叫"}

// recurrenceEN/ZH make a reminder a standing rule ("remind me every morning").
var recurrenceEN = []string{"every day", "every morning", "every evening", "every night", "every week", "every month", "each day", "daily", "weekly", "every time", "always", "from now on", "whenever", "each morning", "each week"}
var recurrenceZH = []string{"每天", "每周", "每晚", "每次", "每当", "每个", "每月", "每年", "以后", "今后", "总是", "一直", "每逢"}

// reminderEN/ZH mark reminders and alarms.
var reminderEN = []string{"remind", "reminded", "reminder", "reminders", "set an alarm", "set a timer", "alarm", "wake me"}
var reminderZH = []string{"提醒", "闹钟", "叫醒", "定时"}

// todoEN/ZH mark to-do lists and errands.
var todoEN = []string{"to-do", "todo", "to do list", "task list", "checklist", "remember to", "don't forget to", "do not forget to"}
var todoZH = []string{"待办", "待做", "任务清单", "任务列表", "别忘了去", "记得去"}

var (
	errandENRe = regexp.MustCompile(`\b(need|needs|have|has|must|got|should|going) to (buy|call|pick up|send|pay|book|finish|submit|email|return|renew|schedule|fix|clean|go to|take out|bring|collect|print|mail|order|cancel|reply to|prepare)\b`)
	errandZHRe = regexp.MustCompile(`(要|得|需要|必须|记得|别忘了|不要忘了|记着)去?(买|交|寄|取|订|预约|打电话|发邮件|付|还钱|缴|办理|提交|完成|带|拿|接|送|打印|续费|预订|取消|准备)`)
)

// stepsRe marks execution steps and command lines.
var stepsRe = regexp.MustCompile(`(?i)\bstep ?\d|\bstep (one|two|three)\b|第[一二三四五六七八九十0-9]+步|首先.{0,60}然后|\bfirst,.{0,80}\bthen\b|` + "```" + `|(^|\s)\$ \w|\b(npm install|pip install|go get|go install|apt install|apt-get install|brew install|cargo build|cargo install)\b|\bsudo \w`)

// weatherEN/ZH are weather words; they make a snapshot only together with a window
// or a current-state marker ("User likes sunny weather" is a preference).
var weatherEN = []string{"weather", "forecast", "temperature", "degrees", "rain", "raining", "rainy", "snow", "snowing", "sunny", "cloudy", "humidity", "humid", "windy", "storm", "typhoon", "air quality", "aqi", "pm2.5", "celsius", "fahrenheit"}
var weatherZH = []string{"天气", "气温", "温度", "下雨", "有雨", "降雨", "雷阵雨", "阵雨", "晴", "阴天", "多云", "下雪", "台风", "湿度", "风力", "空气质量", "预报", "降温", "升温", "雾霾"}
var snapshotEN = []string{"forecast", "currently", "right now", "it is raining", "it's raining", "will rain", "will be"}
var snapshotZH = []string{"预报", "现在", "当前", "目前", "此刻", "将有", "会下"}
var degreesRe = regexp.MustCompile(`-?\d+(\.\d+)? ?(°|度|℃|℉|degrees)`)

// summary, period and finance words for day/week/month summaries and period finance.
var summaryEN = []string{"summary", "summaries", "recap", "report", "digest", "overview", "in total", "total", "totals"}
var summaryZH = []string{"总结", "汇总", "小结", "日报", "周报", "月报", "统计", "合计", "总共", "一共", "共计"}
var periodEN = []string{"daily", "weekly", "monthly", "today's", "yesterday's", "this week's", "this month's", "last week", "last month", "this week", "this month", "today", "yesterday"}
var periodZH = []string{"今日", "当天", "每日", "每周", "每月", "本周", "本月", "上周", "上个月", "今天", "这周", "这个月", "昨天", "当月", "本日"}
var financeEN = []string{"spent", "spend", "spending", "expense", "expenses", "expenditure", "income", "revenue", "balance", "bill", "bills", "budget", "paid", "cost", "costs", "earned", "profit", "loss"}
var financeZH = []string{"花了", "花费", "支出", "收入", "开销", "消费", "账单", "余额", "预算", "记账", "进账", "盈亏", "赚了", "亏了"}

// toolListEN/ZH mark lists of the assistant's tools.
var toolListEN = []string{"available tools", "tool list", "tools available", "list of tools", "following tools", "function calling", "function call", "tool call", "tool calls", "tool_call", "memory_save", "memory_append", "memory_delete", "memory_list"}
var toolListZH = []string{"可用工具", "工具列表", "工具清单", "可以使用的工具", "调用工具", "工具调用", "可调用的工具"}

// systemEN/ZH mark system state and the assistant's own implementation.
var systemEN = []string{"system prompt", "system message", "system status", "system state", "server status", "uptime", "api key", "token limit", "context window", "max_tokens", "max tokens", "top_p", "model version", "vector_status", "embedding model", "memory_key", "index worker", "json schema"}
var systemZH = []string{"系统提示", "系统状态", "系统设置", "服务器状态", "系统消息", "当前模型", "模型版本", "上下文窗口", "向量索引", "嵌入模型"}

// streamingEN/ZH mark streaming switches.
var streamingEN = []string{"streaming", "stream output", "stream mode", "stream=true", "stream=false", "streamed output", "sse"}
var streamingZH = []string{"流式", "流式输出", "流式响应"}

// profileKeyParts are key words of identity-profile slots, which live in profiles,
// not in long-term memory. Matched against the normalised key with separators unified.
var profileKeyParts = []string{"nickname", "nick_name", "nick-name", "avatar", "persona", "ai-name", "ai_name", "ainame", "assistant-name", "assistant_name", "bot-name", "bot_name", "agent-name", "agent_name", "ai-nickname"}
var profileKeyZH = []string{"昵称", "ai名字", "ai名称", "ai的名字", "助手名字", "助手名称", "表情", "头像", "人设"}

// profileContentEN/ZH say the content is about the assistant's identity or a
// nickname slot.
var profileContentEN = []string{"call you", "your name", "name you", "assistant's name", "ai's name", "the ai is called", "the assistant is called", "nickname", "the ai's persona", "assistant persona"}
var profileContentZH = []string{"叫你", "你的名字", "给你起", "助手的名字", "ai的名字", "ai名字", "ai名称", "昵称", "你就叫"}

// locationSlots and nameSlots are key words whose value must look like a place or a
// name: digits alone are an extraction error ("纯数字写进城市", digits written as a city).
var locationSlots = toSet([]string{"city", "country", "province", "state", "hometown", "location", "address", "nationality", "region", "home", "birthplace", "district"})
var nameSlots = toSet([]string{"name", "first_name", "last_name", "full_name", "surname"})

// slotValueMarkers introduce the value of a slot in a statement, longest first.
var slotValueMarkers = []string{" lives in ", " live in ", " is from ", " comes from ", " was born in ", " moved to ", " name is ", " called ", " from ", " in ", " is ", "住在", "来自", "位于", "出生在", "搬到", "名字是", "叫做", "叫", "是", "在", "为"}

// questionEN/ZH open or mark a question.
var questionStartEN = []string{"what", "what's", "whats", "how", "how's", "why", "when", "where", "who", "whom", "which", "whose", "can", "could", "would", "will", "should", "shall", "do", "does", "did", "is", "are", "was", "were", "am", "have", "has", "any", "anything", "is there", "are there"}
var questionZH = []string{"什么", "怎么", "怎样", "为什么", "为何", "如何", "哪", "谁", "多少", "能不能", "可不可以", "可以吗", "有没有", "是不是", "要不要", "会不会", "是否"}
var questionEndZH = []string{"吗", "呢", "么", "嘛"}

// Non-informative clauses.
var greetingEN = []string{"hi", "hello", "hey", "hiya", "howdy", "yo", "greetings", "good morning", "good afternoon", "good evening", "morning", "evening", "hi there", "hello there", "hey there"}
var greetingZH = []string{"你好", "您好", "嗨", "哈喽", "哈罗", "早上好", "上午好", "中午好", "下午好", "晚上好", "早安", "在吗", "在不在", "早"}
var thanksEN = []string{"thank", "thanks", "thx", "ty", "many thanks", "appreciate it", "much appreciated", "cheers"}
var thanksZH = []string{"谢谢", "感谢", "多谢", "非常感谢", "太感谢", "谢啦", "谢了"}
var farewellEN = []string{"bye", "goodbye", "good bye", "see you", "see ya", "talk later", "talk to you later", "good night", "goodnight", "catch you later", "let's chat again", "let's talk again"}
var farewellZH = []string{"再见", "拜拜", "晚安", "下次再聊", "回头聊", "改天聊", "下次聊", "先这样"}

// greetingContains are phrases that make a clause small talk wherever they stand.
var greetingContains = []string{"chat with you", "for a chat", "talk with you", "talk to you", "来找你聊天", "找你聊", "和你聊", "跟你聊", "聊聊天", "来找你了"}

// ackEN/ZH are acknowledgements as whole clauses; ackPrefix… are formulas that
// acknowledge whatever follows them ("I'll try those methods").
var ackEN = []string{"ok", "okay", "k", "sure", "yes", "yeah", "yep", "yup", "no", "nope", "got it", "i see", "i understand", "understood", "alright", "all right", "fine", "great", "good", "cool", "nice", "awesome", "perfect", "sounds good", "sounds great", "that sounds great", "that sounds good", "that sounds interesting", "that's great", "that's good", "that's interesting", "that's a great idea", "that's a good idea", "makes sense", "you're right", "indeed", "wow", "haha", "lol", "hmm", "right", "exactly", "of course", "certainly", "absolutely", "agreed", "interesting", "amazing", "wonderful", "excellent", "i agree", "i think so", "i hope so", "me too", "same here", "no problem", "never mind",
	"i will", "i'll do that", "i will do that", "i'm back", "i'm back again"}
var ackPrefixEN = []string{"i will try", "i'll try", "i will consider", "i'll consider", "i will take a look", "i'll take a look", "i will do my best", "i'll do my best", "i will give it a try", "i'll give it a try", "i will seriously consider", "i'll seriously consider", "i'll think about", "i will think about", "i'll check", "i will check", "i'll definitely", "i will definitely", "i'll keep that in mind", "that sounds", "sounds", "that's a great", "that's a good", "that's really", "that's very", "these are very", "this is a great", "this is very", "it sounds", "you're right", "you are right", "that's right", "that makes sense", "what a great", "very helpful", "so helpful", "really helpful", "very useful", "very practical"}
var ackZH = []string{"好的", "好", "好吧", "嗯", "嗯嗯", "恩", "行", "可以", "知道了", "明白", "明白了", "收到", "没问题", "对", "对的", "是的", "是啊", "哈哈", "太棒了", "真棒", "不错", "好厉害", "有道理", "你说得对", "你说的对", "原来如此", "这样啊", "没错", "当然", "真的吗", "听起来",
	"我会的", "我明白了", "我知道了", "我懂了", "我同意", "我试试", "我也这么认为", "我也是"}
var ackPrefixZH = []string{"我会尝试", "我会试", "我会考虑", "我会认真考虑", "我会努力", "我会去看", "我会去尝试", "我会尽力", "我会多", "我一定会", "我会好好", "听起来", "这个建议", "这是非常", "这真是", "这是一个", "你说得对", "你说的对", "你真是", "真是个好", "很有帮助", "非常有帮助", "很实用", "非常实用"}

// interjectionsEN/ZH are acknowledgements that may open a longer clause and are
// peeled off before it is classified.
var interjectionsEN = []string{"ok", "okay", "sure", "yes", "yeah", "yep", "alright", "all right", "well", "hmm", "oh", "great", "good", "cool", "nice", "wow", "right", "indeed", "haha", "so", "and", "also", "besides", "actually"}
var interjectionsZH = []string{"好的", "好吧", "嗯嗯", "嗯", "恩", "行", "对", "是的", "是啊", "哈哈", "哇", "哎呀", "那", "其实", "另外", "不过"}

// askingEN/ZH open questions phrased as statements.
var askingEN = []string{"i was wondering", "i wonder", "i'm wondering", "i'm curious", "i am curious", "i have a question", "i have another question", "i have a small question", "i want to know", "i'd like to know", "i would like to know", "i want to ask", "i'd like to ask", "i would like to ask"}
var askingZH = []string{"我想知道", "我想问", "我想了解", "我想请教", "我很好奇", "我有个问题", "我有一个问题", "我有一个小问题", "我想找一些", "我想听听", "我想找"}

// vocatives are forms of address stripped before a clause is classified ("Hi, AI
// companion").
var vocativesEN = []string{"my friend", "friend", "ai companion", "my ai companion", "companion", "ai", "assistant", "buddy", "there", "dear", "again"}
var vocativesZH = []string{"我的ai伴侣", "ai伴侣", "朋友", "亲爱的", "小助手", "助手", "啊", "呀", "哦", "呢", "哈", "啦", "了", "我的"}

// commandEN/ZH open a request for the current turn.
var commandEN = []string{"tell", "give", "show", "write", "translate", "explain", "summarize", "summarise", "list", "find", "make", "create", "generate", "help", "recommend", "suggest", "draft", "fix", "check", "calculate", "compute", "search", "look up", "describe", "compare", "rewrite", "convert", "remind", "set", "play", "open", "send", "book", "schedule", "read", "continue", "go on", "repeat", "answer", "reply", "use", "add", "delete", "remove", "stop", "start", "let's", "try", "draw", "sing", "say", "please", "pls", "plz", "can you", "could you", "would you", "will you", "debug", "refactor", "optimize", "review", "analyze", "analyse", "edit", "format", "sort", "plan"}
var commandZH = []string{"请", "帮我", "麻烦", "给我", "告诉我", "翻译", "写", "解释", "总结", "推荐", "列出", "查", "搜索", "计算", "生成", "画", "提醒我", "讲", "说说", "介绍", "分析", "修改", "改", "继续", "打开", "播放", "设置", "发", "订", "用", "你能", "你可以", "能不能", "可以帮", "来一", "整理", "优化"}

// standingEN/ZH mark a request meant to last ("from now on", "以后都"): never skipped.
var standingEN = []string{"remember", "don't forget", "do not forget", "keep in mind", "note that", "from now on", "going forward", "in the future", "in future", "always", "never", "every time", "whenever", "for future reference", "from today on", "starting today",
	"all your replies", "all your answers", "all your responses", "all of your replies", "all of your answers", "every reply", "every answer"}
var standingZH = []string{"记住", "记得我", "别忘了", "不要忘记", "不要忘了", "以后", "今后", "从现在起", "从现在开始", "从今天起", "从今天开始", "每次", "永远", "一律", "总是", "一直都", "往后",
	"所有回复", "所有回答", "所有的回复", "所有的回答", "全部回复"}

// identityEN/ZH set an identity slot of the profile (a name, the assistant's name,
// an emoji): never skipped, although they read like requests ("use 🐱 as my
// emoji", "stop calling me Captain", "请称呼我陈博士").
var identityEN = []string{"calling me", "call you", "name you", "call yourself", "your name is", "your name will be", "my emoji", "as my emoji", "my nickname", "i go by", "address me as", "refer to me as", "to be called"}
var identityZH = []string{"称呼我", "喊我", "叫你", "你就叫", "你以后就叫", "给你起", "给你取名", "你的名字就", "我的昵称", "我的外号", "我的小名", "我的表情", "我的专属", "当我的表情"}

// selfEN/ZH say something about the speaker; a message containing one is worth an
// extraction even if it ends in a question ("I'm vegetarian, what should I cook?").
var selfEN = []string{"i'm a", "i am a", "i'm an", "i am an", "as a", "i have a", "i have an", "i have two", "i have three", "i've got", "i live", "i'm living", "i work", "i'm working", "i am working", "i'm allergic", "i am allergic", "allergic", "vegetarian", "vegan", "my name", "call me", "i'm called", "i like", "i love", "i enjoy", "i prefer", "i hate", "i dislike", "i don't like", "i do not like", "i don't eat", "i can't eat", "i cannot eat", "my wife", "my husband", "my son", "my daughter", "my kids", "my children", "my partner", "my favorite", "my favourite", "my birthday", "my goal", "my dream", "i'm building", "i am building", "i was born", "i'm from", "i am from", "i come from", "i moved", "i usually", "i always", "i never", "i often", "i'm learning", "i am learning", "i'm studying", "i am studying", "i'm into", "i'm a fan", "i've been", "i am currently", "i'm currently", "i plan", "i want to become", "i'm planning", "i am planning", "my job", "my work", "my project", "my hobby", "my hobbies", "i'm married", "i am married", "i'm retired", "i speak", "i'm afraid of", "i am afraid of"}
var selfZH = []string{"我是", "我有", "我叫", "我的名字", "叫我", "我喜欢", "我爱", "我很喜欢", "我非常喜欢", "我特别喜欢", "我也喜欢", "我还喜欢", "我还很喜欢", "我最喜欢", "我不喜欢", "我讨厌", "我不爱", "过敏", "我住", "我在", "我家", "我的", "作为一", "素食", "吃素", "我养", "我来自", "我正在", "我一直", "我每天", "我习惯", "我通常", "我平时", "我经常", "我从不", "我不吃", "我不能吃", "我打算", "我计划", "我想成为", "我的目标", "我的梦想", "我最近在", "我学", "我会说", "我怕", "我害怕", "我对"}
