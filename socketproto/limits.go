package socketproto

// Limits are the size rules of docs/contract.md §3 and §9 ([limits] in config.toml).
type Limits struct {
	MaxQuestionsHard int `toml:"max_questions_hard"`
	MaxOptionsHard   int `toml:"max_options_hard"`
	AnswerSoftLimit  int `toml:"answer_soft_limit"`
	MaxMessageBytes  int `toml:"max_message_bytes"`
	MaxPending       int `toml:"max_pending"`
}

// DefaultLimits are the limits when config.toml says nothing.
func DefaultLimits() Limits {
	return Limits{
		MaxQuestionsHard: 16,
		MaxOptionsHard:   64,
		AnswerSoftLimit:  2000,
		MaxMessageBytes:  1 << 20,
		MaxPending:       10000,
	}
}

// Fixed rules of docs/contract.md §3 that are not configurable.
const (
	StrictMinQuestions  = 1
	StrictMaxQuestions  = 4
	StrictMinOptions    = 2
	StrictMaxOptions    = 4
	StrictMaxHeader     = 12
	FlexibleMaxHeader   = 40
	MaxQuestionChars    = 1000
	MaxLabelChars       = 200
	MaxDescriptionChars = 1000
	MaxPreviewChars     = 4000
	MaxMetadataBytes    = 16 * 1024
	MaxRequestIDLen     = 128
)
