package sandbox

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRandomSeededPerSession checks that the random module draws from a
// generator seeded by Config.Seed: the same seed gives the same numbers in
// a new session (replay, resume), another seed other numbers, and state
// carries across the steps of one session.
func TestRandomSeededPerSession(t *testing.T) {
	code := "import random\nprint(random.random(), random.randint(1, 10**9), random.sample(range(100), 3))"
	a1, _ := execIn(t, Config{Seed: "0"}, code)
	a2, _ := execIn(t, Config{Seed: "0"}, code)
	b, _ := execIn(t, Config{Seed: "0.2.abcdef"}, code)
	assert.Equal(t, a1, a2)
	assert.NotEqual(t, a1, b)
	ids := "import uuid\nprint(uuid.uuid4(), uuid.uuid4())"
	u1, _ := execIn(t, Config{Seed: "0"}, ids)
	u2, _ := execIn(t, Config{Seed: "0"}, ids)
	u3, _ := execIn(t, Config{Seed: "1"}, ids)
	assert.Equal(t, u1, u2)
	assert.NotEqual(t, u1, u3)

	s := New(Config{Seed: "0"})
	first, err := s.Exec(context.Background(), "import random\nx = random.random()\nprint(x)")
	require.NoError(t, err)
	second, err := s.Exec(context.Background(), "print(random.random())")
	require.NoError(t, err)
	assert.NotEqual(t, first.Output, second.Output, "the second step continues the sequence")
	// random.seed() with no argument goes back to the run's seed.
	again, err := s.Exec(context.Background(), "random.seed()\nprint(random.random() == x)")
	require.NoError(t, err)
	assert.Equal(t, "True\n", again.Output)
}
