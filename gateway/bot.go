package gateway

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/bridle-dev/bridle/gitea"
)

// checkBots warns, once at start, about each Gitea project whose bot token
// can do more than open proposals: merge into main (Gitea's default for a
// writer when main's protection has no merge allow-list), push to it, or
// change its protection. The history review never counts the bot's merges
// as approvals, but an agent reaching Gitea with that token (an upstream's
// gitea_* tools) could still merge; only Gitea's protection stops it.
func (s *Server) checkBots(ctx context.Context) {
	for _, id := range s.ids {
		p := s.projects[id]
		if p.gitea == nil || ctx.Err() != nil {
			continue
		}
		log := s.log.With("project", id)
		for _, name := range upstreamsWithBotToken(p.Config) {
			log.Warn("an upstream is given the proposals bot's Gitea token: give upstreams a token of their own, of a user who cannot merge into the rules branch",
				"upstream", name)
		}
		g := p.gitea
		c, err := gitea.New(gitea.Options{URL: g.URL, Token: g.Token, TokenSource: g.TokenSource})
		if err != nil || !c.HasToken() {
			continue
		}
		branch := cmp.Or(g.Main, "main")
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		r, err := c.Repo(g.Owner, g.Repo).Rights(cctx, branch)
		cancel()
		if err != nil {
			log.Warn("could not check what the proposals bot's Gitea token may do to the rules branch", "branch", branch, "err", s.red.Error(err))
			continue
		}
		var can []string
		if r.Merge {
			can = append(can, "merge pull requests into it")
		}
		if r.Push {
			can = append(can, "push to it directly")
		}
		if r.Admin {
			can = append(can, "change its protection (the bot administers the repository)")
		}
		if len(can) > 0 {
			log.Warn("the proposals bot's Gitea token can "+strings.Join(can, ", and ")+
				": an agent reaching Gitea with it could change the rules itself. Bridle never counts the bot's merges as approvals; "+
				"still, protect the branch so that only the approvers may merge (an allow-list, as bridle init --gitea --approvers sets) and give the bot write access, not admin",
				"branch", branch, "repo", g.Owner+"/"+g.Repo)
		}
	}
}

// upstreamsWithBotToken names the upstreams of pc given the same token
// (secret:NAME or file) as its Gitea rules repository's bot.
func upstreamsWithBotToken(pc ProjectConfig) []string {
	g := pc.Gitea
	if g == nil {
		return nil
	}
	bot := strings.TrimSpace(cmp.Or(g.Token, g.TokenFile))
	if bot == "" {
		return nil
	}
	var out []string
	for name, u := range pc.Upstreams {
		for _, v := range u.Secrets {
			if strings.TrimSpace(v) == bot {
				out = append(out, name)
				break
			}
		}
		if t := strings.TrimSpace(cmp.Or(u.BearerToken, u.BearerTokenFile)); t == bot && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
