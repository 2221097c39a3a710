package tpch

import "strings"

// The distributions of dbgen's dists.dss: the word lists of clause 4.2.2.13
// and 4.2.3 with their weights, specification data. A value is picked as
// dbgen's pick_str does: a draw j uniform in 1..(sum of the weights), and
// the first member whose cumulative weight reaches j.

// dist is a weighted list of words.
type dist struct {
	words []string
	total int64
	// member[j-1] is the member picked by draw j.
	member []uint16
}

// weighted is a member and its weight, in dists.dss's order.
type weighted struct {
	word   string
	weight int
}

func newDist(ms []weighted) *dist {
	d := &dist{}
	for i, m := range ms {
		d.words = append(d.words, m.word)
		for range m.weight {
			d.member = append(d.member, uint16(i))
		}
	}
	d.total = int64(len(d.member))
	return d
}

// uniformDist has every word at weight 1.
func uniformDist(words []string) *dist {
	ms := make([]weighted, len(words))
	for i, w := range words {
		ms[i] = weighted{w, 1}
	}
	return newDist(ms)
}

// pick draws a member's index from s (dbgen's pick_str).
func (d *dist) pick(s *stream) int {
	return int(d.member[s.unifInt(1, d.total)-1])
}

// cross is every "a b c" of the syllables, the first varying slowest: the
// order of p_types and p_cntr in dists.dss.
func cross(parts ...string) []string {
	out := []string{""}
	for _, p := range parts {
		var next []string
		for _, prefix := range out {
			for _, w := range strings.Fields(p) {
				if prefix == "" {
					next = append(next, w)
				} else {
					next = append(next, prefix+" "+w)
				}
			}
		}
		out = next
	}
	return out
}

// nation is a row of NATION: its name and region (clause 4.2.3).
type nation struct {
	name   string
	region int
}

// nations are the 25 nations in key order with their region keys (dbgen
// keeps the region as cumulative weights of its "nations" list).
var nations = []nation{
	{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4},
	{"ETHIOPIA", 0}, {"FRANCE", 3}, {"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2},
	{"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2}, {"JORDAN", 4}, {"KENYA", 0},
	{"MOROCCO", 0}, {"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3},
	{"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
}

// regions are the 5 regions in key order.
var regions = []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}

// The lists the generator and the parameters pick from.
var (
	// partTypes are the 150 types of clause 4.2.2.13 (p_types).
	partTypes = uniformDist(cross("STANDARD SMALL MEDIUM LARGE ECONOMY PROMO",
		"ANODIZED BURNISHED PLATED POLISHED BRUSHED", "TIN NICKEL BRASS STEEL COPPER"))
	// containers are the 40 containers (p_cntr).
	containers = uniformDist(cross("SM LG MED JUMBO WRAP", "CASE BOX BAG JAR PACK PKG CAN DRUM"))
	// segments are the market segments (msegmnt).
	segments = uniformDist([]string{"AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"})
	// priorities are the order priorities (o_oprio).
	priorities = uniformDist([]string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"})
	// instructions are the ship instructions (instruct).
	instructions = uniformDist([]string{"DELIVER IN PERSON", "COLLECT COD", "TAKE BACK RETURN", "NONE"})
	// shipModes are the ship modes (smode).
	shipModes = uniformDist([]string{"REG AIR", "AIR", "RAIL", "TRUCK", "MAIL", "FOB", "SHIP"})
	// returnFlags are the return flags of received lines (rflag).
	returnFlags = uniformDist([]string{"R", "A"})
	// colors are the 92 colours of part names (colors).
	colors = uniformDist(strings.Fields(`almond antique aquamarine azure beige bisque black
		blanched blue blush brown burlywood burnished chartreuse chiffon chocolate coral
		cornflower cornsilk cream cyan dark deep dim dodger drab firebrick floral forest
		frosted gainsboro ghost goldenrod green grey honeydew hot indian ivory khaki lace
		lavender lawn lemon light lime linen magenta maroon medium metallic midnight mint
		misty moccasin navajo navy olive orange orchid pale papaya peach peru pink plum
		powder puff purple red rose rosy royal saddle salmon sandy seashell sienna sky
		slate smoke snow spring steel tan thistle tomato turquoise violet wheat white yellow`))
	// nationsUniform picks a nation with equal weights (nations2, for
	// query parameters).
	nationsUniform = uniformDist(nationNames())
	// regionsUniform picks a region (regions).
	regionsUniform = uniformDist(regions)
	// q13Words1 and q13Words2 are Q13's WORD1 and WORD2 (Q13a, Q13b).
	q13Words1 = uniformDist([]string{"special", "pending", "unusual", "express"})
	q13Words2 = uniformDist([]string{"packages", "requests", "accounts", "deposits"})
)

func nationNames() []string {
	names := make([]string, len(nations))
	for i, n := range nations {
		names[i] = n.name
	}
	return names
}

// The grammar of the text of comments (clause 4.2.2.10; dists.dss's
// pseudo-text distributions).
var (
	nouns = newDist([]weighted{
		{"packages", 40}, {"requests", 40}, {"accounts", 40}, {"deposits", 40},
		{"foxes", 20}, {"ideas", 20}, {"theodolites", 20}, {"pinto beans", 20}, {"instructions", 20},
		{"dependencies", 10}, {"excuses", 10}, {"platelets", 10}, {"asymptotes", 10},
		{"courts", 5}, {"dolphins", 5},
		{"multipliers", 1}, {"sauternes", 1}, {"warthogs", 1}, {"frets", 1}, {"dinos", 1},
		{"attainments", 1}, {"somas", 1}, {"Tiresias", 1}, {"patterns", 1}, {"forges", 1},
		{"braids", 1}, {"frays", 1}, {"warhorses", 1}, {"dugouts", 1}, {"notornis", 1},
		{"epitaphs", 1}, {"pearls", 1}, {"tithes", 1}, {"waters", 1}, {"orbits", 1},
		{"gifts", 1}, {"sheaves", 1}, {"depths", 1}, {"sentiments", 1}, {"decoys", 1},
		{"realms", 1}, {"pains", 1}, {"grouches", 1}, {"escapades", 1}, {"hockey players", 1},
	})
	verbs = newDist([]weighted{
		{"sleep", 20}, {"wake", 20}, {"are", 20}, {"cajole", 20}, {"haggle", 20},
		{"nag", 10}, {"use", 10}, {"boost", 10},
		{"affix", 5}, {"detect", 5}, {"integrate", 5},
		{"maintain", 1}, {"nod", 1}, {"was", 1}, {"lose", 1}, {"sublate", 1}, {"solve", 1},
		{"thrash", 1}, {"promise", 1}, {"engage", 1}, {"hinder", 1}, {"print", 1}, {"x-ray", 1},
		{"breach", 1}, {"eat", 1}, {"grow", 1}, {"impress", 1}, {"mold", 1}, {"poach", 1},
		{"serve", 1}, {"run", 1}, {"dazzle", 1}, {"snooze", 1}, {"doze", 1}, {"unwind", 1},
		{"kindle", 1}, {"play", 1}, {"hang", 1}, {"believe", 1}, {"doubt", 1},
	})
	adverbs = newDist([]weighted{
		{"sometimes", 1}, {"always", 1}, {"never", 1},
		{"furiously", 50}, {"slyly", 50}, {"carefully", 50}, {"blithely", 40}, {"quickly", 30}, {"fluffily", 20},
		{"slowly", 1}, {"quietly", 1}, {"ruthlessly", 1}, {"thinly", 1}, {"closely", 1},
		{"doggedly", 1}, {"daringly", 1}, {"bravely", 1}, {"stealthily", 1}, {"permanently", 1},
		{"enticingly", 1}, {"idly", 1}, {"busily", 1}, {"regularly", 1}, {"finally", 1},
		{"ironically", 1}, {"evenly", 1}, {"boldly", 1}, {"silently", 1},
	})
	articles     = newDist([]weighted{{"the", 50}, {"a", 20}, {"an", 5}})
	prepositions = newDist([]weighted{
		{"about", 50}, {"above", 50}, {"according to", 50}, {"across", 50}, {"after", 50},
		{"against", 40}, {"along", 40}, {"alongside of", 30}, {"among", 30}, {"around", 20}, {"at", 10},
		{"atop", 1}, {"before", 1}, {"behind", 1}, {"beneath", 1}, {"beside", 1}, {"besides", 1},
		{"between", 1}, {"beyond", 1}, {"by", 1}, {"despite", 1}, {"during", 1}, {"except", 1},
		{"for", 1}, {"from", 1}, {"in place of", 1}, {"inside", 1}, {"instead of", 1}, {"into", 1},
		{"near", 1}, {"of", 1}, {"on", 1}, {"outside", 1}, {"over", 1}, {"past", 1}, {"since", 1},
		{"through", 1}, {"throughout", 1}, {"to", 1}, {"toward", 1}, {"under", 1}, {"until", 1},
		{"up", 1}, {"upon", 1}, {"whithout", 1}, {"with", 1}, {"within", 1},
	})
	auxiliaries = newDist([]weighted{
		{"do", 1}, {"may", 1}, {"might", 1}, {"shall", 1}, {"will", 1}, {"would", 1}, {"can", 1},
		{"could", 1}, {"should", 1}, {"ought to", 1}, {"must", 1}, {"will have to", 1},
		{"shall have to", 1}, {"could have to", 1}, {"should have to", 1}, {"must have to", 1},
		{"need to", 1}, {"try to", 1},
	})
	terminators = newDist([]weighted{{".", 50}, {";", 1}, {":", 1}, {"?", 1}, {"!", 1}, {"--", 1}})
	adjectives  = newDist([]weighted{
		{"special", 20}, {"pending", 20}, {"unusual", 20}, {"express", 20},
		{"furious", 1}, {"sly", 1}, {"careful", 1}, {"blithe", 1}, {"quick", 1}, {"fluffy", 1},
		{"slow", 1}, {"quiet", 1}, {"ruthless", 1}, {"thin", 1}, {"close", 1}, {"dogged", 1},
		{"daring", 1}, {"brave", 1}, {"stealthy", 1}, {"permanent", 1}, {"enticing", 1},
		{"idle", 1}, {"busy", 1},
		{"regular", 50}, {"final", 40}, {"ironic", 40}, {"even", 30}, {"bold", 20}, {"silent", 10},
	})
	// grammar: N noun phrase, V verb phrase, P prepositional phrase, T
	// terminator.
	grammar = newDist([]weighted{{"N V T", 3}, {"N V P T", 3}, {"N V N T", 3}, {"N P V N T", 1}, {"N P V P T", 1}})
	// nounPhrases: N noun, A article, J adjective, D adverb; a comma
	// follows the word it is written after.
	nounPhrases = newDist([]weighted{{"N", 10}, {"J N", 20}, {"J, J N", 10}, {"D J N", 50}})
	// verbPhrases: V verb, X auxiliary, D adverb.
	verbPhrases = newDist([]weighted{{"V", 30}, {"X V", 1}, {"V D", 40}, {"X V D", 1}})
)
