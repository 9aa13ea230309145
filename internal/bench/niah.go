package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

var (
	fillSubjects = []string{
		"The old committee", "A careful reader", "Every startup founder", "The city council", "Most historians",
		"A young engineer", "The research group", "Our neighbour", "The museum curator", "Each volunteer",
		"The ship's captain", "A quiet librarian", "The orchestra", "Many gardeners", "The night watchman",
		"A travelling merchant", "The village baker", "The design team", "An honest critic", "The school principal",
	}
	fillVerbs = []string{
		"discussed", "rebuilt", "questioned", "described", "studied", "painted", "measured", "ignored",
		"celebrated", "catalogued", "repaired", "imagined", "compared", "translated", "documented", "planned",
	}
	fillObjects = []string{
		"the northern bridge", "an unfinished manuscript", "the river's changing course", "a forgotten recipe",
		"the price of grain", "the winter festival", "a map of the coastline", "the broken clock tower",
		"an argument about taxes", "the rules of the game", "the garden behind the library", "a box of letters",
		"the shape of the hills", "the harbour lights", "a theory of small habits", "the long road south",
	}
	fillTails = []string{
		"before the first snow arrived", "while the market was closing", "with surprising patience",
		"for most of the afternoon", "without telling anyone", "during the long dry summer",
		"as the bells rang twice", "after a week of rain", "in a notebook kept for years",
		"with the help of two friends", "because nobody else would", "until the lamps were lit",
	}
	fillAsides = []string{
		"Nobody could say exactly why.", "It seemed important at the time.", "The details were argued over for years.",
		"Some of the notes survive.", "That is how the story is usually told.", "Few people remember it now.",
		"The records from that year are incomplete.", "It was, by all accounts, a good decision.",
	}
	needleAdjectives = []string{
		"amber", "silent", "crimson", "hollow", "velvet", "frozen", "golden", "restless", "hidden", "copper",
		"misty", "scarlet", "gentle", "brisk", "lunar", "coral", "ivory", "rustic", "polar", "mellow",
	}
	needleNouns = []string{
		"lighthouse", "falcon", "orchard", "lantern", "meadow", "compass", "harbor", "glacier", "violin", "canyon",
		"sparrow", "pavilion", "thicket", "beacon", "quarry", "willow", "citadel", "ember", "lagoon", "monsoon",
	}
)

// fillerSentence appends one sentence of neutral filler text.
func fillerSentence(r *rand.Rand, b *strings.Builder) {
	switch r.IntN(10) {
	case 0:
		b.WriteString(pick(r, fillAsides))
	case 1:
		subj := pick(r, fillSubjects)
		fmt.Fprintf(b, "In %d, %s %s %s.", 1700+r.IntN(320), strings.ToLower(subj[:1])+subj[1:], pick(r, fillVerbs), pick(r, fillObjects))
	default:
		fmt.Fprintf(b, "%s %s %s %s.", pick(r, fillSubjects), pick(r, fillVerbs), pick(r, fillObjects), pick(r, fillTails))
	}
}

// fillerParagraph appends a paragraph of 4-9 sentences and a blank line.
func fillerParagraph(r *rand.Rand, b *strings.Builder) {
	n := 4 + r.IntN(6)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		fillerSentence(r, b)
	}
	b.WriteString("\n\n")
}

// genNIAH: filler paragraphs with one needle sentence at a random depth.
func genNIAH(t *Task, r *rand.Rand) {
	key := pick(r, needleAdjectives) + "-" + pick(r, needleNouns)
	number := 1000000 + r.Int64N(9000000)
	needle := fmt.Sprintf("The special magic number for %s is %d.", key, number)
	budget := byteBudget(KindNIAH, t.Size, fillerParagraph) - len(needle)
	depth := r.Float64()
	at := int(depth * float64(budget))

	var b strings.Builder
	b.Grow(budget + len(needle) + 4096)
	placed := false
	for b.Len() < budget {
		if !placed && b.Len() >= at {
			b.WriteString(needle)
			b.WriteString("\n\n")
			placed = true
		}
		fillerParagraph(r, &b)
	}
	if !placed {
		b.WriteString(needle)
		b.WriteString("\n\n")
	}
	t.Vars = []Var{{Name: "context", Value: b.String()}}
	t.Query = fmt.Sprintf(
		"The context contains one sentence of the form \"The special magic number for KEY is NUMBER.\" What is the special magic number for %s? Answer with the number only.",
		key,
	)
	t.Gold = Gold{Format: GoldNumber, Answer: fmt.Sprint(number), Number: number}
}
