package main

import (
	"context"
	"errors"
	"fmt"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
)

func init() { storeSubcommands["summarize"] = storeSummarize }

// storeSummarize prints a summary of a stored value written by the
// (sub-)model: the store's Summarize with a chat summarizer, cached by the
// value's content hash in the store directory, so summarizing an unchanged
// value again calls no model.
func storeSummarize(ctx context.Context, env *cliEnv, dir string, args []string) error {
	fs := subFlags(env, &dir, "summarize", "KEY [--tokens N] [model flags]")
	tokens := fs.Int("tokens", rlmctx.DefaultSummaryTokens, "length of the summary in `TOKENS`")
	var models modelFlags
	models.register(fs)
	pos, err := storeArgs(fs, args, 1, "KEY")
	if err != nil {
		return err
	}
	if *tokens < 1 {
		return fmt.Errorf("%w: --tokens must be >= 1", errUsage)
	}
	cfg, err := models.config(env)
	if err != nil {
		if errors.Is(err, llm.ErrNoModel) {
			return fmt.Errorf("%w (rlm store show KEY prints a summary without a model)", err)
		}
		return err
	}
	if err := storeExists(dir); err != nil {
		return err
	}
	chat, _, closeModel, err := models.chatModel(env, nil)
	if err != nil {
		return err
	}
	defer closeModel()
	st, err := rlmctx.OpenStore(
		rlmctx.StoreConfig{Dir: dir, Summarizer: rlmctx.ChatSummarizer{Model: chat, ModelName: firstNonEmpty(cfg.SubModel, cfg.Model)}},
	)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, w := range st.Warnings() {
		fmt.Fprintln(env.stderr, "warning:", w)
	}
	sum, err := st.Summarize(ctx, pos[0], *tokens)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.stdout, sum)
	return nil
}
