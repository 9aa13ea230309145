package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// Categories of record texts (the TREC coarse question classes). Each text
// is a question whose class is plain from its wording.
var categories = []string{"abbreviation", "entity", "description", "human", "location", "numeric"}

var (
	slotAbbr = []string{
		"NASA",
		"UNESCO",
		"HTML",
		"GDP",
		"DNA",
		"RSVP",
		"ASAP",
		"NATO",
		"CPU",
		"FAQ",
		"PIN",
		"UFO",
		"LED",
		"ATM",
		"VAT",
		"IQ",
	}
	slotThing = []string{
		"telescope",
		"bicycle",
		"printing press",
		"compass",
		"steam engine",
		"thermometer",
		"piano",
		"microscope",
		"lighthouse",
		"parachute",
		"barometer",
		"typewriter",
	}
	slotThings = []string{
		"bones in the human body",
		"moons around Jupiter",
		"keys on a piano",
		"players on a rugby team",
		"stars on the flag",
		"islands in the archipelago",
		"steps in the tower",
		"lakes in the region",
	}
	slotPlace = []string{
		"the Eiffel Tower",
		"Lake Titicaca",
		"the Great Barrier Reef",
		"Machu Picchu",
		"the Sahara",
		"Mount Kilimanjaro",
		"the Danube delta",
		"Angkor Wat",
		"the Atacama desert",
		"Easter Island",
	}
	slotAnimal  = []string{"bird", "fish", "insect", "mammal", "reptile", "spider"}
	slotAbility = []string{
		"can sleep standing up",
		"lives the longest",
		"migrates the farthest",
		"can change colour",
		"builds the largest nest",
		"survives without water",
	}
	slotNature = []string{
		"leaves change colour in autumn",
		"the sky looks blue",
		"cats purr",
		"bread rises",
		"ice floats on water",
		"tides rise and fall",
		"volcanoes erupt",
		"bees dance",
	}
	slotBook = []string{
		"the first dictionary",
		"the national anthem",
		"the theory of evolution",
		"the oldest surviving novel",
		"the declaration of rights",
		"the famous travel diary",
	}
	slotFeat = []string{
		"climb the highest mountain",
		"fly across the ocean alone",
		"reach the south pole",
		"swim the channel",
		"sail around the world",
		"walk on the moon",
	}
	slotShop  = []string{"bookshop", "bakery", "bicycle repair shop", "flower market", "public library", "night market"}
	slotEvent = []string{
		"the first moon landing",
		"the fall of the wall",
		"the great fire",
		"the first modern olympics",
		"the opening of the canal",
		"the founding of the university",
	}
	slotFest = []string{"harvest festival", "royal wedding", "school graduation", "winter parade", "spring fair", "city marathon"}
	slotCity = []string{"Lisbon", "Nairobi", "Osaka", "Quito", "Oslo", "Perth", "Lima", "Hanoi"}
)

// question is one question form: each %s of format is filled, in order,
// with a random pick from the matching slot list. twoCities forms take two
// different cities instead.
type question struct {
	format    string
	slots     [][]string
	twoCities bool
}

// questions[c] holds the question forms of categories[c].
var questions = [][]question{
	{ // abbreviation
		{format: "What does the abbreviation %s stand for?", slots: [][]string{slotAbbr}},
		{format: "What is %s short for?", slots: [][]string{slotAbbr}},
		{format: "What is the full form of the acronym %s?", slots: [][]string{slotAbbr}},
	},
	{ // entity
		{format: "Which %s %s?", slots: [][]string{slotAnimal, slotAbility}},
		{format: "What colour is the paint used on the old %s?", slots: [][]string{slotThing}},
		{format: "What instrument is played at the start of the %s?", slots: [][]string{slotFest}},
	},
	{ // description
		{format: "Why is it that %s?", slots: [][]string{slotNature}},
		{format: "How does a %s work?", slots: [][]string{slotThing}},
		{format: "Can you explain the purpose of a %s?", slots: [][]string{slotThing}},
	},
	{ // human
		{format: "Who invented the %s?", slots: [][]string{slotThing}},
		{format: "Who was the first person to %s?", slots: [][]string{slotFeat}},
		{format: "Who wrote %s?", slots: [][]string{slotBook}},
	},
	{ // location
		{format: "Where is %s located?", slots: [][]string{slotPlace}},
		{format: "In which country can you find %s?", slots: [][]string{slotPlace}},
		{format: "Where is the best %s in %s?", slots: [][]string{slotShop, slotCity}},
	},
	{ // numeric
		{format: "How many %s are there?", slots: [][]string{slotThings}},
		{format: "In what year did %s happen?", slots: [][]string{slotEvent}},
		{format: "How far is %s from %s in kilometres?", twoCities: true},
	},
}

// categoryText appends a question of category c.
func categoryText(r *rand.Rand, c int, b *strings.Builder) {
	q := pick(r, questions[c])
	var args []any
	if q.twoCities {
		i := r.IntN(len(slotCity))
		j := (i + 1 + r.IntN(len(slotCity)-1)) % len(slotCity) // another city
		args = []any{slotCity[i], slotCity[j]}
	}
	for _, s := range q.slots {
		args = append(args, pick(r, s))
	}
	fmt.Fprintf(b, q.format, args...)
}

// record is one line "date | user_id | text".
type record struct {
	day  int // days since recordEpoch
	user int
	cat  int
}

// Records span recordDays days from recordEpoch (two years, 24 months).
var recordEpoch = time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	recordDays   = 731
	recordMonths = 24
)

func dayString(d int) string { return recordEpoch.AddDate(0, 0, d).Format("2006-01-02") }

func dayMonth(d int) int {
	t := recordEpoch.AddDate(0, 0, d)
	return (t.Year()-2023)*12 + int(t.Month()) - 1
}

const recordHeader = "date | user_id | text\n"

// writeRecord appends rec as a line, generating its text.
func writeRecord(r *rand.Rand, rec record, b *strings.Builder) {
	b.WriteString(dayString(rec.day))
	fmt.Fprintf(b, " | %d | ", rec.user)
	categoryText(r, rec.cat, b)
	b.WriteByte('\n')
}

var (
	recStatsOnce sync.Once
	recBytes     float64 // mean bytes per record line
)

func sampleRecord(r *rand.Rand, b *strings.Builder) {
	writeRecord(r, record{day: r.IntN(recordDays), user: 100000 + r.IntN(900000), cat: r.IntN(len(categories))}, b)
}

// genRecords makes about size tokens of records with their texts: the
// header line, then one line per record in random order.
func genRecords(size int, r *rand.Rand) ([]record, []int, string) {
	recStatsOnce.Do(func() {
		rr := rand.New(rand.NewPCG(3, 4))
		var b strings.Builder
		n := 0
		for b.Len() < 64<<10 {
			sampleRecord(rr, &b)
			n++
		}
		recBytes = float64(b.Len()) / float64(n)
	})
	budget := byteBudget("records", size, sampleRecord) - len(recordHeader)
	nrec := max(int(float64(budget)/recBytes), 20)
	nusers := max(nrec/8, 10)
	users := distinctInts(r, nusers, 100000, 999999)
	recs := make([]record, 0, nrec)
	var b strings.Builder
	b.Grow(budget + 256)
	b.WriteString(recordHeader)
	for len(recs) < 20 || b.Len() < budget {
		rec := record{day: r.IntN(recordDays), user: users[r.IntN(len(users))], cat: r.IntN(len(categories))}
		writeRecord(r, rec, &b)
		recs = append(recs, rec)
	}
	return recs, users, b.String()
}

// distinctInts returns n distinct ints in [lo, hi] in random order.
func distinctInts(r *rand.Rand, n, lo, hi int) []int {
	if n > hi-lo+1 {
		n = hi - lo + 1
	}
	seen := make(map[int]bool, n)
	out := make([]int, 0, n)
	for len(out) < n {
		x := lo + r.IntN(hi-lo+1)
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// recordsQueryPreamble describes the records for every records question.
func recordsQueryPreamble() string {
	return "The variable `records` holds lines \"date | user_id | text\" (after a header line). Each text is a question belonging to exactly one of these categories: " +
		"abbreviation (asks what an abbreviation stands for), entity (asks which thing, animal, colour or instrument), description (asks why something happens, how something works or what something is for), " +
		"human (asks who did something), location (asks where something is), numeric (asks how many, how far or what year). "
}
