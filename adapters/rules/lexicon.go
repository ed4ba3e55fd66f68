package rules

import "strings"

// zhSlugs gives common Chinese objects an English slug, so "我喜欢川菜" and "I like
// Sichuan food" land on the same key. Anything not listed gets a hashed slug. Adding an
// entry changes the key of that object for new memories; the refiner's similarity
// reuse keeps old and new together.
var zhSlugs = map[string]string{
	"川菜": "sichuan_food", "湘菜": "hunan_food", "粤菜": "cantonese_food", "火锅": "hotpot", "烧烤": "barbecue",
	"寿司": "sushi", "披萨": "pizza", "面条": "noodles", "米饭": "rice", "甜食": "sweets", "甜点": "desserts",
	"辣": "spicy_food", "辣的": "spicy_food", "吃辣": "spicy_food", "辣椒": "chili", "海鲜": "seafood", "牛肉": "beef",
	"猪肉": "pork", "羊肉": "lamb", "鸡肉": "chicken", "鱼": "fish", "香菜": "cilantro", "花生": "peanuts",
	"坚果": "nuts", "牛奶": "milk", "乳制品": "dairy", "鸡蛋": "eggs", "麸质": "gluten", "小麦": "wheat",
	"芒果": "mango", "虾": "shrimp", "螃蟹": "crab", "青霉素": "penicillin", "花粉": "pollen", "猫毛": "cat_hair",
	"尘螨": "dust_mites", "酒精": "alcohol", "肉": "meat", "蔬菜": "vegetables", "水果": "fruit", "巧克力": "chocolate",
	"咖啡": "coffee", "茶": "tea", "喝茶": "tea", "乌龙茶": "oolong_tea", "绿茶": "green_tea", "红茶": "black_tea",
	"奶茶": "milk_tea", "品茶": "tea_tasting", "啤酒": "beer", "红酒": "wine", "酒": "alcohol",
	"音乐": "music", "听音乐": "music", "爵士乐": "jazz", "爵士": "jazz", "摇滚": "rock", "摇滚乐": "rock",
	"古典音乐": "classical_music", "流行音乐": "pop_music", "民谣": "folk_music", "说唱": "rap",
	"钢琴": "piano", "弹钢琴": "piano", "吉他": "guitar", "弹吉他": "guitar", "唱歌": "singing",
	"电影": "movies", "看电影": "movies", "科幻电影": "scifi_movies", "动作片": "action_movies", "喜剧片": "comedies",
	"纪录片": "documentaries", "电视剧": "tv_series", "看电视剧": "tv_series", "动漫": "anime", "动画": "animation",
	"读书": "reading", "阅读": "reading", "看书": "reading", "小说": "novels", "看小说": "novels", "读小说": "novels",
	"科幻小说": "scifi_novels", "历史": "history", "诗歌": "poetry", "文艺作品": "literary_works",
	"旅游": "travel", "旅行": "travel", "爬山": "hiking", "徒步": "hiking", "登山": "mountaineering", "露营": "camping",
	"运动": "sports", "跑步": "running", "游泳": "swimming", "瑜伽": "yoga", "练瑜伽": "yoga", "健身": "fitness",
	"篮球": "basketball", "打篮球": "basketball", "足球": "football", "踢足球": "football", "羽毛球": "badminton",
	"打羽毛球": "badminton", "网球": "tennis", "乒乓球": "table_tennis", "骑行": "cycling", "骑自行车": "cycling",
	"滑雪": "skiing", "冥想": "meditation", "散步": "walking",
	"绘画": "painting", "画画": "painting", "摄影": "photography", "拍照": "photography", "写作": "writing",
	"书法": "calligraphy", "烹饪": "cooking", "做饭": "cooking", "做菜": "cooking", "园艺": "gardening",
	"编程": "programming", "游戏": "games", "玩游戏": "games", "打游戏": "games", "下棋": "chess", "手工": "crafts",
	"舞蹈": "dancing", "跳舞": "dancing",
	"猫": "cat", "小猫": "cat", "狗": "dog", "小狗": "dog", "鹦鹉": "parrot", "仓鼠": "hamster", "兔子": "rabbit",
	"金鱼": "goldfish", "乌龟": "turtle",
	"儿子": "son", "女儿": "daughter", "孩子": "child", "哥哥": "brother", "弟弟": "brother", "姐姐": "sister",
	"妹妹": "sister", "老婆": "wife", "妻子": "wife", "老公": "husband", "丈夫": "husband", "男朋友": "boyfriend",
	"女朋友": "girlfriend",
	"中文":  "chinese", "汉语": "chinese", "普通话": "chinese", "英文": "english", "英语": "english", "日语": "japanese",
	"音乐类型": "music_genre", "颜色": "color", "食物": "food", "歌手": "singer", "作家": "author", "城市": "city",
	"季节": "season", "动物": "animal", "户外活动": "outdoor_activities", "旅游方式": "way_to_travel", "书": "book",
	"乐队": "band", "演员": "actor", "导演": "director", "饮料": "drink", "花": "flower",
	"表情": "emoji", "表情符号": "emoji", "表情包": "emoji", "格式": "format", "语气": "tone", "正式": "formal",
	"幽默": "humor", "列表": "lists", "礼貌": "polite", "风格": "style",
	"日文": "japanese", "韩语": "korean", "法语": "french", "德语": "german", "西班牙语": "spanish", "粤语": "cantonese",
	"俄语": "russian", "意大利语": "italian", "葡萄牙语": "portuguese", "阿拉伯语": "arabic", "英国英语": "british_english",
	// goals, studies, relatives, tastes
	"马拉松": "marathon", "全马": "marathon", "半马": "half_marathon", "司法考试": "bar_exam", "法考": "bar_exam",
	"考研": "graduate_entrance_exam", "雅思": "ielts", "托福": "toefl", "买房": "buy_house", "法律": "law", "医学": "medicine",
	"计算机": "computer_science", "经济学": "economics", "心理学": "psychology", "攀岩": "rock_climbing",
	"马": "horse", "太太": "wife", "媳妇": "wife", "爱人": "spouse", "妈妈": "mother", "母亲": "mother", "爸爸": "father",
	"父亲": "father", "未婚夫": "fiance", "未婚妻": "fiancee", "宝宝": "baby", "男友": "boyfriend", "女友": "girlfriend",
	"美食": "gourmet_food", "韩剧": "korean_dramas", "美剧": "american_tv_series", "日剧": "japanese_dramas",
	"双胞胎": "twins", "对象": "partner", "泰国菜": "thai_food", "日料": "japanese_food", "咖啡馆": "cafe", "蘑菇": "mushrooms", "洋葱": "onions", "大蒜": "garlic",
}

// zhVerbs are leading verbs stripped from a Chinese object before looking it up
// ("吃川菜" → 川菜, "听爵士乐" → 爵士乐).
var zhVerbs = []string{"吃", "喝", "听", "看", "玩", "读", "打", "踢", "弹", "练", "去", "做", "学"}

// domainOf maps words of an object to the area of its preference key.
var domainWords = map[string]string{}

func init() {
	add := func(domain string, ws string) {
		for _, w := range strings.Fields(ws) {
			domainWords[w] = domain
		}
	}
	add("food", `food foods cuisine dish dishes spicy sichuan hunan cantonese hotpot barbecue bbq sushi pizza noodles
		rice sweets desserts dessert seafood beef pork lamb chicken fish cilantro vegetables fruit steak pasta burger
		burgers chocolate cheese cake meat chili cooking recipes baking mushrooms mushroom onions garlic`)
	add("drink", `coffee tea oolong milk_tea beer wine juice latte espresso tea_tasting drinks cocktails`)
	add("music", `music jazz rock classical pop folk rap hip-hop piano guitar singing songs concerts band bands violin
		opera kpop musicals`)
	add("film", `movies movie films film cinema tv series shows anime animation documentaries comedies dramas tv_series`)
	add("reading", `reading books book novels novel poetry literature literary history magazines comics`)
	add("travel", `travel traveling travelling trips trip hiking camping mountaineering backpacking`)
	add("sport", `sports running swimming yoga fitness basketball football soccer badminton tennis table_tennis cycling
		skiing gym workout workouts jogging climbing meditation walking golf baseball volleyball`)
	add("hobby", `painting photography writing calligraphy gardening programming games gaming chess crafts dancing
		drawing knitting fishing`)
}

// domainOf returns the area for a slug ("sichuan_food" → food), "interest" if none.
func domainOf(slug string) string {
	if d, ok := domainWords[slug]; ok {
		return d
	}
	parts := strings.Split(slug, "_")
	for i := len(parts) - 1; i >= 0; i-- { // the head noun is usually last
		p := parts[i]
		for _, w := range []string{p, strings.TrimSuffix(p, "s"), strings.TrimSuffix(p, "ing")} {
			if d, ok := domainWords[w]; ok {
				return d
			}
		}
	}
	return "interest"
}

// professions end "I am a …" statements that say what the user does for a living.
var professions = toSet(`engineer developer programmer coder teacher professor lecturer doctor physician surgeon
	dentist nurse pharmacist designer student lawyer attorney accountant manager writer author artist painter chef
	cook scientist researcher consultant analyst architect journalist reporter photographer musician editor
	translator farmer pilot driver mechanic electrician plumber carpenter salesperson marketer entrepreneur founder
	ceo cto freelancer therapist psychologist vet veterinarian librarian firefighter officer soldier police
	policeman policewoman waiter waitress barista cashier banker trader economist investor administrator
	technician secretary assistant intern retiree homemaker housewife tutor coach trainer actor actress singer
	dancer model blogger youtuber streamer director producer`)

// zhProfessionSuffixes end "我是一名…" statements about an occupation.
var zhProfessionSuffixes = []string{"工程师", "程序员", "设计师", "老师", "教师", "教授", "医生", "护士", "律师", "会计", "学生",
	"研究生", "博士", "经理", "总监", "主管", "作家", "记者", "编辑", "摄影师", "厨师", "司机", "警察", "销售", "分析师",
	"架构师", "产品经理", "运营", "创业者", "老板", "自由职业者", "翻译", "画家", "音乐人", "歌手", "演员", "主播", "博主",
	"公务员", "职员", "员工", "店员", "技术员", "研究员", "咨询师", "心理咨询师", "药剂师", "农民", "工人", "师", "员", "家",
	"财务", "人事", "行政", "客服", "前台", "出纳", "导游", "保安", "HR", "hr", "兽医", "牙医", "中医", "西医", "医师"}

// animals and relatives that "I have a …" / "我有…" statements keep.
var pets = toSet(`dog dogs puppy puppies cat cats kitten kittens parrot parrots hamster hamsters rabbit rabbits
	fish goldfish turtle turtles tortoise bird birds horse horses guinea_pig snake lizard`)
var relatives = toSet(`son sons daughter daughters kid kids child children brother brothers sister sisters wife
	husband boyfriend girlfriend partner fiance fiancee twin twins baby`)

func toSet(ws string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(ws) {
		m[w] = true
	}
	return m
}

// languages name reply languages, English and Chinese spellings, by slug.
var languages = map[string]string{
	"chinese": "Chinese", "mandarin": "Chinese", "english": "English", "japanese": "Japanese", "korean": "Korean",
	"french": "French", "german": "German", "spanish": "Spanish", "cantonese": "Cantonese", "russian": "Russian",
	"italian": "Italian", "portuguese": "Portuguese", "arabic": "Arabic", "dutch": "Dutch", "hindi": "Hindi",
	"turkish": "Turkish", "polish": "Polish", "swedish": "Swedish", "greek": "Greek", "vietnamese": "Vietnamese", "thai": "Thai",
	"中文": "Chinese", "汉语": "Chinese", "普通话": "Chinese", "英文": "English", "英语": "English", "日语": "Japanese",
	"日文": "Japanese", "韩语": "Korean", "法语": "French", "德语": "German", "西班牙语": "Spanish", "粤语": "Cantonese",
	"俄语": "Russian", "意大利语": "Italian", "葡萄牙语": "Portuguese", "阿拉伯语": "Arabic",
	"繁体中文": "Traditional Chinese", "繁体字": "Traditional Chinese", "繁体": "Traditional Chinese",
	"简体中文": "Simplified Chinese", "简体字": "Simplified Chinese", "简体": "Simplified Chinese",
}
