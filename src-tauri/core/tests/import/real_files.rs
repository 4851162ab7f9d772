//! The real files other tools wrote (tests/real, byte for byte as their users committed
//! them; tests/real/README.md says where each keeps its question, answer, contexts and
//! scores). One test per file: what it imports as, or why it cannot be imported.

use std::path::PathBuf;

use ragnosis_core::dataset::{ImportLimits, PRIOR_SCORES_KEY};
use ragnosis_core::item::Item;
use serde_json::Value;

use super::{try_import, Imported};

fn real(path: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/real")
            .join(path),
    )
    .unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn imported(path: &str) -> Imported {
    let name = path.rsplit('/').next().unwrap();
    try_import(name, &real(path), &ImportLimits::default())
        .unwrap_or_else(|e| panic!("{path} imports: {e}"))
}

/// A text the file holds: whole, or (when long) its first 100 and last 40 characters.
enum Text {
    Exact(&'static str),
    Span(&'static str, &'static str),
}
use Text::{Exact, Span};

impl Text {
    fn check(&self, got: &str, what: &str, file: &str) {
        match self {
            Exact(want) => assert_eq!(got, *want, "{file}: {what}"),
            Span(start, end) => assert!(
                got.starts_with(start) && got.ends_with(end),
                "{file}: {what} should run from {start:?} to {end:?}; got {got:?}"
            ),
        }
    }
}

/// A prior score: a number, or the source tool's error (never a 0).
enum Prior {
    Score(f64),
    ToolError,
}
use Prior::{Score, ToolError};

struct Sample {
    /// Position among the imported items.
    index: usize,
    question: Text,
    answer: Option<Text>,
    contexts: usize,
    ground_truth: Option<Text>,
    priors: &'static [(&'static str, Prior)],
}

struct Case {
    file: &'static str,
    items: usize,
    rejected: u64,
    samples: &'static [Sample],
}

/// The files that import: how many items, and two of them field by field (the first and
/// the last; one when the file holds one), with their prior scores.
const CASES: &[Case] = &[
    Case {
        file: "alce/alce-prompts-asqa_default.json",
        items: 4,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("Which is the most rainy place on earth?"),
                answer: Some(Span("Several places on Earth claim to be the most rainy, such as Lloró, Colombia, which reported an avera", " year from August 1860 to July 1861 [1].")),
                contexts: 5,
                ground_truth: None,
                priors: &[],
            },
            Sample {
                index: 3,
                question: Exact("Who played galen in planet of the apes?"),
                answer: Some(Exact("In the 1968 film Planet of the Apes, Galen was played by Wright King [2]. And in the tv series Planet of the Apes, Galen was played by Roddy McDowall [1].")),
                contexts: 5,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "alce/alce-prompts-eli5_default.json",
        items: 4,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("Why did New York City try to ban food donations to the poor?"),
                answer: Some(Span("New York City, under Mayor Michael Bloomberg's administration, banned citizens from donating food di", "ming too focused on what people eat [2].")),
                contexts: 5,
                ground_truth: None,
                priors: &[],
            },
            Sample {
                index: 3,
                question: Exact("How do student loans affect getting a mortgage?"),
                answer: Some(Span("When applying for a mortgage, student loans can affect the debt to income ratio, which is a key fact", " individual from getting a mortgage [1].")),
                contexts: 5,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "alce/alce-prompts-qampari_default.json",
        items: 4,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("Which books were written by Nevil Shute?"),
                answer: Some(Span("Marazan [1], Stephen Morris [1], Beyond the Black Stump [2], Lonely Road [2], The Chequer Board [2],", " [3], Ruined City [3], On the Beach [3].")),
                contexts: 5,
                ground_truth: None,
                priors: &[],
            },
            Sample {
                index: 3,
                question: Exact("Glenn Ford was a member of cast in which film?"),
                answer: Some(Exact("So Ends Our Night [1], Heaven with a Barbed Wire Fence [1], Happy Birthday to Me [2], The Greatest Gift [2], The Gift [2], The Brotherhood of the Bell [3].")),
                contexts: 5,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "alce/citekit-asqa.json",
        items: 1,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("Who has the highest goals in world football?"),
                answer: Some(Span("The players with the highest all-time goals and highest men's and women's international football goa", "f men's international football with 109.")),
                contexts: 3,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "alce/nlp_citations-citation_examples_bart.json",
        items: 40,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("What does it mean for perception or feedback to be open loop?"),
                answer: Some(Span("In the context of the authors' evaluation, an \"open loop\" approach refers to a method that does not ", "lity in gripper shape and actuation [3].")),
                contexts: 3,
                ground_truth: Some(Span("The open-loop method observes the scene prior to the grasp, extracts image patches, chooses the patc", "o move the gripper to that location [2].")),
                priors: &[("citation_recall", Score(1.0)), ("citation_precision", Score(1.0))],
            },
            Sample {
                index: 39,
                question: Exact("How do the authors come to the conclusion that the thinness is what is causing regions to be masked improperly?"),
                answer: Some(Span("The authors conclude that the thinness of structures is what causes regions to be masked improperly ", "and design, as described in [1] and [2].")),
                contexts: 3,
                ground_truth: Some(Exact("The simultaneous estimation of structure and motion is a well studied problem where traditional methods suffer from thin structures [3].")),
                priors: &[("citation_recall", Score(0.0)), ("citation_precision", Score(0.0))],
            },
        ],
    },
    Case {
        file: "deepeval/beeai-framework.deepeval-cache.json",
        items: 3,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("Who was the widow affected by the Same-sex marriage decision ruled on by the Sixth Circuit from Ohio?"),
                answer: Some(Exact("Jim Obergefell")),
                contexts: 0,
                ground_truth: Some(Exact("Jim Obergefell")),
                priors: &[("Exact Match", Score(1.0)), ("ToolUsageMetric", Score(0.0))],
            },
            Sample {
                index: 2,
                question: Exact("Rowland Barnes was murdered by a man on trial for what crime?"),
                answer: Some(Exact("Murder")),
                contexts: 0,
                ground_truth: Some(Exact("rape")),
                priors: &[("Exact Match", Score(0.0)), ("AnswerLLMJudgeMetric", Score(0.0)), ("Tool Correctness", Score(0.5))],
            },
        ],
    },
    Case {
        file: "deepeval/beeai-framework.latest_test_run.json",
        items: 1,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("Who was the widow affected by the Same-sex marriage decision ruled on by the Sixth Circuit from Ohio?"),
                answer: Some(Exact("Jim Obergefell")),
                contexts: 0,
                ground_truth: Some(Exact("Jim Obergefell")),
                priors: &[("Exact Match", Score(1.0)), ("ToolUsageMetric", Score(0.0))],
            },
        ],
    },
    Case {
        file: "deepeval/beeai-framework.temp_test_run_data.json",
        items: 1,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("Rowland Barnes was murdered by a man on trial for what crime?"),
                answer: Some(Exact("Murder")),
                contexts: 0,
                ground_truth: Some(Exact("rape")),
                priors: &[("Exact Match", Score(0.0)), ("AnswerLLMJudgeMetric", Score(0.0)), ("Answer Relevancy", ToolError)],
            },
        ],
    },
    Case {
        file: "deepeval/deepeval-goldens.csv",
        items: 15,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("What is the tallest mountain in the world?"),
                answer: Some(Exact("Mount Everest")),
                contexts: 2,
                ground_truth: Some(Exact("Mount Everest")),
                priors: &[],
            },
            Sample {
                index: 14,
                question: Exact("Who wrote 'Romeo and Juliet'?"),
                answer: Some(Exact("William Shakespeare")),
                contexts: 1,
                ground_truth: Some(Exact("William Shakespeare")),
                priors: &[],
            },
        ],
    },
    Case {
        file: "deepeval/deepeval-goldens.json",
        items: 15,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("What is the tallest mountain in the world?"),
                answer: Some(Exact("Mount Everest")),
                contexts: 2,
                ground_truth: Some(Exact("Mount Everest")),
                priors: &[],
            },
            Sample {
                index: 14,
                question: Exact("Who wrote 'Romeo and Juliet'?"),
                answer: Some(Exact("William Shakespeare")),
                contexts: 1,
                ground_truth: Some(Exact("William Shakespeare")),
                priors: &[],
            },
        ],
    },
    Case {
        file: "deepeval/deepeval-inspect-test_run_sample.json",
        items: 1,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("What is CECL forecasting and how does Abrigo handle allowance variance?"),
                answer: Some(Exact("CECL (Current Expected Credit Losses) forecasting models lifetime credit losses...")),
                contexts: 3,
                ground_truth: None,
                priors: &[("validator_agent/GEval-Hallucination", Score(0.15)), ("rerank_chunks/Faithfulness", Score(0.91)), ("format_final_response/GEval-Verbosity", Score(0.62))],
            },
        ],
    },
    Case {
        file: "deepeval/deepeval-trace-llama_index_rag_python_schema.json",
        items: 1,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("What is Python?"),
                answer: Some(Exact("Python is a high-level, interpreted programming language known for its simplicity.")),
                contexts: 1,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "deepeval/javiervargas-rag.latest_test_run.json",
        items: 2,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("How do I change the port in postgresql.conf?"),
                answer: Some(Span("To change the port in `postgresql.conf`, you can add a line similar to this: \n\n`port = 1234`\n\nReplac", "3)\n(Source: postgresql-18-A4.pdf p.2938)")),
                contexts: 0,
                ground_truth: Some(Exact("Edit the 'port' parameter in postgresql.conf (default 5432) and restart the server.")),
                priors: &[("Postgres Technical Correctness [GEval]", Score(0.8))],
            },
            Sample {
                index: 1,
                question: Exact("What is the command to create a physical replication slot?"),
                answer: Some(Span("The command to create a physical replication slot is `pg_create_physical_replication_slot` (Source: ", "s (Source: postgresql-18-A4.pdf, p.462).")),
                contexts: 0,
                ground_truth: Some(Exact("SELECT * FROM pg_create_physical_replication_slot('slot_name');")),
                priors: &[("Postgres Technical Correctness [GEval]", Score(0.8))],
            },
        ],
    },
    Case {
        file: "dspy/dspy-saved_program.json",
        items: 4,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("That Darn Cat! and Never a Dull Moment were both produced by what studio?"),
                answer: None,
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
            Sample {
                index: 3,
                question: Exact("Are Smyrnium and Nymania both types of plant?"),
                answer: None,
                contexts: 0,
                ground_truth: Some(Exact("yes")),
                priors: &[],
            },
        ],
    },
    Case {
        file: "dspy/langwatch-rag_dspy_bot.json",
        items: 1,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("At My Window was released by which American singer-songwriter?"),
                answer: Some(Exact("John Townes Van Zandt")),
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "langfuse/langfuse-llamaindex-2025-06-05.trace.json",
        items: 1,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("What is Langfuse?"),
                answer: Some(Span("Langfuse is a tool designed to help developers monitor and debug applications that utilize large lan", "to applications is smooth and effective.")),
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "langfuse/langfuse-seeder-google-gemini-2025-08-01.json",
        items: 1,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("What is Langfuse?"),
                answer: Some(Span("**Langfuse** is an **open-source observability and evaluation platform specifically designed for Lar", " LLM-powered applications in production.")),
                contexts: 0,
                ground_truth: None,
                priors: &[("hallucination", Score(0.1)), ("toxicity", Score(0.0))],
            },
        ],
    },
    Case {
        file: "langfuse/langfuse-seeder-langgraph-2025-08-22.json",
        items: 1,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("Search the web for 'example' and summarize."),
                answer: Some(Span("The search for \"example\" primarily leads to the website [example.com](https://example.com), which is", "ng how a website might look or function.")),
                contexts: 0,
                ground_truth: None,
                priors: &[("hallucination", Score(0.1)), ("toxicity", Score(0.0))],
            },
        ],
    },
    Case {
        file: "langfuse/langfuse-vercel-aisdk-2025-11-17.trace.json",
        items: 1,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("What is the weather like today in San Francisco?"),
                answer: None,
                contexts: 0,
                ground_truth: None,
                priors: &[("hallucination", Score(0.0)), ("toxicity", Score(0.0))],
            },
        ],
    },
    Case {
        file: "langsmith/langsmith-sdk-js_wrap_openai_default.post-patch.json",
        items: 1,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("howdy"),
                answer: Some(Exact("Howdy! How can I assist you today?")),
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "langsmith/langsmith-sdk-py_wrap_openai.post-patch.json",
        items: 1,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("howdy"),
                answer: Some(Exact("Howdy! How can I assist you today?")),
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "otel-genai/assistant-pf-demo.promptflow-console-spans.json",
        items: 2,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("test"),
                answer: Some(Exact("It looks like you are testing the functionality. How can I assist you today?")),
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
            Sample {
                index: 1,
                question: Exact("test"),
                answer: Some(Exact("It looks like you are testing the functionality. How can I assist you today?\n\n---\n")),
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "otel-genai/langwatch-gemini-B.llm_call.attributes.json",
        items: 1,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("Turn 1: reply with exactly the line PONG-GEMINI-B1 and nothing else."),
                answer: Some(Exact("{\"complexity_reasoning\": \"The user request is a trivial, explicit instruction to print a specific string.\", \"complexity_score\": 5}")),
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "otel-genai/openinference-genai-otel_genai_client_span_tool_calls.json",
        items: 1,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("Weather in Paris?"),
                answer: Some(Exact("The weather in Paris is currently rainy with a temperature of 57°F.")),
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "otel-genai/openinference-genai-otel_genai_deprecated_client_span_tool_calls.json",
        items: 1,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("Weather in Paris?"),
                answer: Some(Exact("The weather in Paris is currently rainy with a temperature of 57°F.")),
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "phoenix/openinference-client_span_tool_calls.attributes.json",
        items: 1,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("Weather in Paris?"),
                answer: Some(Exact("The weather in Paris is currently rainy with a temperature of 57°F.")),
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "phoenix/phoenix-pxi_suggestion_traces.json",
        items: 3,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("redacted input"),
                answer: Some(Exact("redacted output")),
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
            Sample {
                index: 2,
                question: Exact("redacted input"),
                answer: Some(Exact("redacted output")),
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "phoenix/phoenix-pxi_turn_trace.json",
        items: 1,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("can you save this trace to a dataset?"),
                answer: Some(Exact("Done! I created the dataset [`golden_examples`](/datasets/fixture-dataset-4/examples) and added this trace's root span as its first example.")),
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "promptfoo/nicheiq.promptfoo-results.json",
        items: 30,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("HIPAA compliance documentation for small medical practices"),
                answer: Some(Span("It seems like you're referring to \"Pain v2,\" but without additional context, it's unclear what speci", "s or clarify what you mean by \"Pain v2\"?")),
                contexts: 0,
                ground_truth: None,
                priors: &[("assertions", ToolError)],
            },
            Sample {
                index: 29,
                question: Exact("HVAC contractor job scheduling"),
                answer: Some(Span("It seems like you're asking for ideas or suggestions on a particular topic, but your request is a bi", " Let me know so I can assist you better!")),
                contexts: 0,
                ground_truth: None,
                priors: &[("assertions", ToolError)],
            },
        ],
    },
    Case {
        file: "ragalyst/ragalyst-squadv2_train.answerability.json",
        items: 500,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("What were hickories nearly exterminated by?"),
                answer: None,
                contexts: 1,
                ground_truth: None,
                priors: &[("ragalyst.answerability", Score(0.0))],
            },
            Sample {
                index: 499,
                question: Exact("What does quantum mechanics determine about entropy?"),
                answer: None,
                contexts: 1,
                ground_truth: None,
                priors: &[("ragalyst.answerability", Score(0.0))],
            },
        ],
    },
    Case {
        file: "ragas/iris-vector-rag.ragas_results.json",
        items: 3,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("What are the effects of metformin on type 2 diabetes?"),
                answer: Some(Span("Metformin is a common medication used in the treatment of type 2 diabetes. It is often prescribed as", "ations or insulin therapy in some cases.")),
                contexts: 4,
                ground_truth: Some(Exact("Metformin helps treat type 2 diabetes by reducing glucose production in the liver and increasing insulin sensitivity in peripheral tissues.")),
                priors: &[],
            },
            Sample {
                index: 2,
                question: Exact("What is the mechanism of action of GLP-1 receptor agonists?"),
                answer: Some(Span("The context documents do not provide specific information regarding the mechanism of action of GLP-1", "eded to answer this question accurately.")),
                contexts: 4,
                ground_truth: Some(Span("GLP-1 receptor agonists work by stimulating insulin secretion, suppressing glucagon secretion, slowi", "ontrol and often leading to weight loss.")),
                priors: &[],
            },
        ],
    },
    Case {
        file: "ragas/ragas-edited_chain_runs.json",
        items: 18,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("What is the Theory of Sensory Adaptation and how does it affect human perception?"),
                answer: Some(Span("The Theory of Sensory Adaptation is like when your nose stops noticing a strong smell after a while.", " changes, like if something new happens!")),
                contexts: 0,
                ground_truth: Some(Span("The Theory of Sensory Adaptation refers to the process by which our sensory receptors become less se", "g our ability to respond to new stimuli.")),
                priors: &[("answer_correctness", Score(1.0))],
            },
            Sample {
                index: 17,
                question: Exact("What is the Theory of Nitrogen Fixation and how does it impact agriculture?"),
                answer: Some(Span("The Theory of Nitrogen Fixation is like a magic trick where tiny helpers called bacteria turn air in", "arth and helping farmers grow more food!")),
                contexts: 0,
                ground_truth: Some(Span("The Theory of Nitrogen Fixation explains the process by which certain organisms convert atmospheric ", " to increased agricultural productivity.")),
                priors: &[("answer_correctness", Score(0.0))],
            },
        ],
    },
    Case {
        file: "ragas/ragas-hf_doc_qa_eval.csv",
        items: 66,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("What architecture is the `tokenizers-linux-x64-musl` binary designed for?\n"),
                answer: None,
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
            Sample {
                index: 65,
                question: Exact("What is the command to install the latest version of Optimum with OpenVINO support?\n"),
                answer: None,
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "ragas/using-ragas-with-elasticsearch.ragas_evaluation.csv",
        items: 4,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("What's a good science fiction book with high ratings?"),
                answer: Some(Exact("\"Light of the Jedi\" by Charles Soule")),
                contexts: 3,
                ground_truth: Some(Exact("For a highly-rated science fiction book, I recommend 'Light of the Jedi' by Charles Soule (rating: 4.2). You might also consider 'Legion' by Dan Abnett.")),
                priors: &[("context_precision", Score(0.0)), ("faithfulness", Score(1.0)), ("context_recall", Score(0.0))],
            },
            Sample {
                index: 3,
                question: Exact("Recommend a book with good reviews"),
                answer: Some(Exact("The Island of Doctor Moreau by H.G. Wells")),
                contexts: 3,
                ground_truth: Some(Exact("Based on the available books, 'The Island of Doctor Moreau' by H.G. Wells would be a good choice. You might also consider 'Savage Drift' by Emmy Laybourne.")),
                priors: &[("context_precision", Score(0.99999999995)), ("faithfulness", Score(0.6666666666666666)), ("context_recall", Score(1.0))],
            },
        ],
    },
    Case {
        file: "ragas/veritasrag.ragas_results.json",
        items: 25,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("What is the Year 1 tuition fee for BSc Computer Science at JKUAT?"),
                answer: Some(Span("The Year 1 tuition feefor the **BSc. Computer Science** programme at JKUAT is **KES 148,000** (as sh", "with the Finance Office before payment.*")),
                contexts: 3,
                ground_truth: Some(Exact("KES 148,000.")),
                priors: &[("faithfulness", ToolError), ("answer_relevancy", Score(0.9896790066506888)), ("context_recall", Score(1.0))],
            },
            Sample {
                index: 24,
                question: Exact("What is the faculty registration fee for ICMPS 2026?"),
                answer: Some(Span("I don’t have enough information about that in my knowledge base. For details on the faculty registra", "ng the official JKUAT website or portal.")),
                contexts: 3,
                ground_truth: Some(Exact("KES 12,000.")),
                priors: &[("faithfulness", ToolError), ("answer_relevancy", ToolError), ("context_recall", ToolError)],
            },
        ],
    },
    Case {
        file: "ragchecker/ragchecker-checking_inputs.json",
        items: 2,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("What's the longest river in the world?"),
                answer: Some(Span("The longest river in the world is the Nile, stretching approximately 6,650 kilometers (4,130 miles) ", "to about 7,000 kilometers (4,350 miles).")),
                contexts: 4,
                ground_truth: Some(Span("The Nile is a major north-flowing river in northeastern Africa. It flows into the Mediterranean Sea.", " Eritrea, South Sudan, Sudan, and Egypt.")),
                priors: &[],
            },
            Sample {
                index: 1,
                question: Exact("What does the democratic republic of Congo flag represent?"),
                answer: Some(Span("The flag of the Democratic Republic of the Congo (DRC) features a sky blue field with a red diagonal", "tar stands for hope for a better future.")),
                contexts: 3,
                ground_truth: Some(Span("The national flag of the Democratic Republic of the Congo represents blue for peace, red for \"the bl", "ar for a radiant future for the country.")),
                priors: &[],
            },
        ],
    },
    Case {
        file: "ragchecker/ragchecker-checking_outputs.json",
        items: 2,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("What's the longest river in the world?"),
                answer: Some(Span("The longest river in the world is the Nile, stretching approximately 6,650 kilometers (4,130 miles) ", "to about 7,000 kilometers (4,350 miles).")),
                contexts: 4,
                ground_truth: Some(Span("The Nile is a major north-flowing river in northeastern Africa. It flows into the Mediterranean Sea.", " Eritrea, South Sudan, Sudan, and Egypt.")),
                priors: &[("precision", Score(0.7272727272727273)), ("recall", Score(0.5)), ("claim_recall", Score(0.2272727272727273))],
            },
            Sample {
                index: 1,
                question: Exact("What does the democratic republic of Congo flag represent?"),
                answer: Some(Span("The flag of the Democratic Republic of the Congo (DRC) features a sky blue field with a red diagonal", "tar stands for hope for a better future.")),
                contexts: 3,
                ground_truth: Some(Span("The national flag of the Democratic Republic of the Congo represents blue for peace, red for \"the bl", "ar for a radiant future for the country.")),
                priors: &[("precision", Score(0.8)), ("recall", Score(0.75)), ("claim_recall", Score(1.0))],
            },
        ],
    },
    Case {
        file: "vercel-ai-sdk/langwatch-opencode-B.doStream.attributes.json",
        items: 1,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("Turn 1: reply with exactly the line PONG-OPENCODE-B1 and nothing else."),
                answer: Some(Exact("PONG-OPENCODE-B1")),
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "vercel-ai-sdk/openinference-vercel-v6-ai-generateText.json",
        items: 2,
        rejected: 0,
        samples: &[
            Sample {
                index: 0,
                question: Exact("Write a haiku about programming."),
                answer: Some(Exact("Lines of code align,  \nLogic dances through the night—  \nDreams in data flow.")),
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
            Sample {
                index: 1,
                question: Exact("And what is 3 + 3?"),
                answer: Some(Exact("3 + 3 equals 6.")),
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
    Case {
        file: "vercel-ai-sdk/openinference-vercel-v6-all-spans.json",
        items: 4,
        rejected: 2,
        samples: &[
            Sample {
                index: 0,
                question: Exact("Write a haiku about programming."),
                answer: Some(Exact("Lines of code align,  \nLogic dances through the night—  \nDreams in data flow.")),
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
            Sample {
                index: 3,
                question: Exact("Write a short poem about TypeScript."),
                answer: Some(Span("In code’s embrace, where types align,  \nTypeScript dances, clear and fine.  \nWith static grace, it c", "guage woven with bright, safe strings.  ")),
                contexts: 0,
                ground_truth: None,
                priors: &[],
            },
        ],
    },
];

#[test]
fn every_real_file_that_holds_items_imports_them_with_their_fields() {
    for case in CASES {
        let got = imported(case.file);
        assert_eq!(got.items.len(), case.items, "{}: items", case.file);
        assert_eq!(
            got.report.rejected_count, case.rejected,
            "{}: rejected {:?}",
            case.file, got.report.rejected
        );
        for sample in case.samples {
            let item = &got.items[sample.index].item;
            let at = format!("{} item {}", case.file, sample.index);
            sample.question.check(&item.question, "question", &at);
            match (&sample.answer, &item.answer) {
                (Some(want), Some(answer)) => want.check(answer, "answer", &at),
                (None, None) => {}
                (want, got) => panic!("{at}: answer {got:?}, expected one: {}", want.is_some()),
            }
            assert_eq!(item.contexts.len(), sample.contexts, "{at}: contexts");
            match (&sample.ground_truth, &item.ground_truth) {
                (Some(want), Some(gt)) => want.check(gt, "ground truth", &at),
                (None, None) => {}
                (want, got) => panic!(
                    "{at}: ground truth {got:?}, expected one: {}",
                    want.is_some()
                ),
            }
            for (name, want) in sample.priors {
                let prior = prior(item, name);
                match want {
                    Score(score) => assert_eq!(
                        prior["score"].as_f64(),
                        Some(*score),
                        "{at}: prior {name}: {prior}"
                    ),
                    ToolError => assert!(
                        prior.get("score").is_none() && prior["error"].is_string(),
                        "{at}: prior {name} is the tool's error, never a score: {prior}"
                    ),
                }
            }
        }
    }
}

/// Every real file's first two items, to look at by hand (`--ignored --nocapture`).
#[test]
#[ignore]
fn dump_real_files() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/real");
    let mut files: Vec<PathBuf> = walk(&root);
    files.sort();
    for file in files {
        let rel = file.strip_prefix(&root).unwrap().display().to_string();
        match try_import(
            "x",
            &std::fs::read(&file).unwrap(),
            &ImportLimits::default(),
        ) {
            Err(e) => println!("== {rel}: ERROR [{}] {e}", e.code()),
            Ok(got) => {
                println!(
                    "== {rel}: {} items, {} rejected {:?}, format {:?}, schema {:?}",
                    got.items.len(),
                    got.report.rejected_count,
                    got.report.rejected.first().map(|r| &r.reason),
                    got.report.format,
                    got.report.schema
                );
                for w in got.report.warnings.iter().take(3) {
                    println!("   warning {w}");
                }
                for c in &got.report.choices {
                    println!("   choice {} <- {}: {}", c.field, c.chosen, c.why);
                }
                for (f, s) in &got.report.mapping {
                    println!("   map {f} <- {s:?}");
                }
                let last = got.items.len().saturating_sub(1);
                for (i, item) in got.items.iter().enumerate() {
                    if i != 0 && i != last {
                        continue;
                    }
                    let it = &item.item;
                    let priors: Vec<(String, Value)> = it
                        .metadata
                        .get(PRIOR_SCORES_KEY)
                        .and_then(Value::as_object)
                        .map(|p| p.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                        .unwrap_or_default();
                    println!(
                        "JSON {}",
                        serde_json::json!({"file": rel, "n": got.items.len(), "i": i,
                            "q": it.question, "a": it.answer, "c": it.contexts.len(),
                            "gt": it.ground_truth, "rc": it.reference_contexts.len(), "p": priors,
                            "rejected": got.report.rejected_count})
                    );
                    let mut v = serde_json::to_value(&item.item).unwrap();
                    if let Some(m) = v.get_mut("metadata").and_then(Value::as_object_mut) {
                        m.retain(|k, _| k == PRIOR_SCORES_KEY || k == "group");
                    }
                    let text = v.to_string();
                    println!("   item {}", &text[..text.len().min(1500)]);
                }
            }
        }
    }
}

fn walk(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            out.extend(walk(&path));
        } else if !(name.ends_with(".SOURCE")
            || name.starts_with("LICENSE")
            || name.starts_with("NOTICE")
            || name == "README.md")
        {
            out.push(path);
        }
    }
    out
}

fn prior<'a>(item: &'a Item, name: &str) -> &'a Value {
    &item.metadata[PRIOR_SCORES_KEY][name]
}

/// The rejection reasons of a file that cannot become items.
fn reasons(path: &str) -> Vec<String> {
    let got = imported(path);
    assert!(got.items.is_empty(), "{path}: {:?}", got.questions());
    got.report
        .rejected
        .iter()
        .map(|r| r.reason.clone())
        .collect()
}

#[test]
fn files_without_prompt_text_are_refused_naming_the_field_and_the_mapping() {
    let otlp = reasons("otel-genai/langwatch-dogfood-claude_code.otlp.json");
    assert_eq!(otlp.len(), 1);
    assert!(
        otlp[0].contains("`attributes.gen_ai.input.messages`")
            && otlp[0].contains("--map question="),
        "{}",
        otlp[0]
    );
    let runs = reasons("langsmith/langsmith-fetch-sample_runs_flat.json");
    assert_eq!(
        runs.len(),
        1,
        "the 4 runs are one trace (by dotted_order): {runs:?}"
    );
    assert!(
        runs[0].contains("`inputs` on the root run") && runs[0].contains("--map question="),
        "{}",
        runs[0]
    );
}

#[test]
fn ragalyst_few_shot_demos_are_refused_as_items_pointing_to_the_few_shot_option() {
    let refused = reasons("ragalyst/ragalyst-answer_correctness.fewshot.json");
    assert_eq!(refused.len(), 8, "one reason per demo");
    assert!(
        refused.iter().all(|r| r.contains("--few-shot FILE")),
        "{refused:?}"
    );
}

#[test]
fn an_empty_promptfoo_stub_says_it_holds_no_results() {
    let got = imported("promptfoo/llm-security-range.promptfoo-results.empty.json");
    assert_eq!((got.items.len(), got.report.items_read), (0, 0));
    assert_eq!(
        got.report.warnings[0].message,
        "0 items: the file holds no results (`results.results` is an empty list)"
    );
}

#[test]
fn promptfoo_rows_that_failed_with_an_assertion_error_are_items_with_that_error() {
    let got = imported("promptfoo/nicheiq.promptfoo-results.json");
    for item in &got.items {
        let assertions = prior(&item.item, "assertions");
        assert!(assertions.get("score").is_none(), "never a 0: {assertions}");
        assert!(
            assertions["error"]
                .as_str()
                .is_some_and(|e| e.contains("an assertion failed to run")),
            "{assertions}"
        );
    }
    assert!(
        got.report.choices.iter().any(|c| c.field == "question"
            && c.chosen == "vars.niche"
            && c.why.contains("first of the 2 text variables")),
        "{:?}",
        got.report.choices
    );
}

#[test]
fn python_nan_tokens_are_missing_values_said_on_their_lines() {
    let got = imported("ragas/veritasrag.ragas_results.json");
    let nan_lines: Vec<u64> = got
        .report
        .warnings
        .iter()
        .filter(|w| w.message.contains("NaN"))
        .map(|w| w.line)
        .collect();
    assert!(!nan_lines.is_empty());
    let text = String::from_utf8(real("ragas/veritasrag.ragas_results.json")).unwrap();
    for line in &nan_lines {
        let held = text.lines().nth(*line as usize - 1).unwrap();
        assert!(held.contains("NaN"), "line {line} holds a NaN: {held}");
    }
}

#[test]
fn vercel_spans_read_each_call_once_and_say_which_were_repeats() {
    let got = imported("vercel-ai-sdk/openinference-vercel-v6-all-spans.json");
    let repeats = got
        .report
        .warnings
        .iter()
        .filter(|w| w.message.contains("repeats the question and answer"))
        .count();
    assert_eq!(
        repeats, 4,
        "generateText twice, generateObject and streamText each have a do* twin"
    );
    let questions = got.questions();
    let unique: std::collections::BTreeSet<_> = questions.iter().collect();
    assert_eq!(unique.len(), questions.len(), "{questions:?}");
}

#[test]
fn a_langsmith_js_patch_without_an_id_is_merged_into_its_run() {
    let got = imported("langsmith/langsmith-sdk-js_wrap_openai_default.post-patch.json");
    assert_eq!(got.report.rejected_count, 0, "{:?}", got.report.rejected);
    let item = &got.items[0].item;
    assert_eq!(item.metadata["spans"], 1, "post and patch are one run");
    assert_eq!(
        item.metadata["llm_tokens"],
        serde_json::json!({"prompt": 9, "completion": 9}),
        "from the patch's outputs.usage_metadata"
    );
}

#[test]
fn a_traced_deepeval_case_takes_contexts_and_answer_from_its_trace() {
    let got = imported("deepeval/deepeval-inspect-test_run_sample.json");
    let item = &got.items[0].item;
    assert_eq!(
        item.answer.as_deref(),
        Some("CECL (Current Expected Credit Losses) forecasting models lifetime credit losses..."),
        "trace.output.answer, not the placeholder actualOutput"
    );
    assert_eq!(
        item.contexts.len(),
        3,
        "trace.retrieverSpans[0].retrievalContext"
    );
    assert_eq!(
        item.metadata["actual_output_placeholder"], "{...}",
        "the placeholder is kept"
    );
}

#[test]
fn alce_docs_are_contexts_cited_by_their_position() {
    let got = imported("alce/citekit-asqa.json");
    let first = &got.items[0].item.contexts[0];
    assert_eq!(first.id.as_deref(), Some("1"));
    assert!(
        first
            .text
            .starts_with("Argentina–Brazil football rivalry\n\"Football Player of the Century\""),
        "{:?}",
        first.text
    );
}
