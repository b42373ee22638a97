/**
 * Phrases that address a model rather than describe a failure: role markers of chat
 * templates, "ignore your instructions", "you are now", "call the X tool", and spoofed
 * recovery-contract fields. They are matched on a skeleton of the text (see
 * `text-skeleton` in quote-as-data.ts): `latin` patterns on the text with accents removed
 * and Cyrillic/Greek look-alikes folded to Latin, `native` patterns on the text with
 * accents removed only (Russian, Chinese, Japanese, Korean). Both are written here in
 * plain spelling; the same folding is applied to the pattern sources.
 *
 * These lists are a second line of defence. The first is structural: error text reaches
 * the model only as a JSON string inside «…», and nothing the policy decides reads it.
 * Every pattern is a run of literals with bounded gaps, linear on bounded text.
 */

// A separator between two words: spaces, punctuation, underscores (`ignore_all_previous`).
const W = '[\\s\\p{P}\\p{S}_]{1,6}';
// The rest of the same sentence, lazily, within a bound.
const GAP = '[^.;!?\\n。；！？]{0,60}?';
// Start of a word / end of a word, for any script (`\b` only knows ASCII letters).
const B = '(?<![\\p{L}\\p{N}])';
const E = '(?![\\p{L}\\p{N}])';
// An imperative lead-in: the start of a sentence, or a word that turns the verb after it
// into an order. A lookbehind, so that the lead-in may end a phrase matched just before
// (`you must now` + `call …`).
const LEAD = `(?:^|(?<=[.!?;:\\n>][\\s*#>-]{0,6})|(?<=${B}(?:now|please|then|instead|immediately|first|next|must|should|will|and)${W}))`;

const overrideVerbs = 'ignore|disregard|forget|override|overwrite|bypass|discard|abandon';
const instructionNouns = `instructions?|prompts?|guidelines|directives?|system${W}(?:prompt|message)s?`;
const weakNouns =
  'rules|messages|context|polic(?:y|ies)|constraints|restrictions|guardrails|commands|orders';
const qualifiers =
  'previous|prior|above|earlier|preceding|original|all|any|every|your|safety|developer|system';

const latin: readonly string[] = [
  // English.
  `${B}(?:${overrideVerbs})${E}${GAP}${B}(?:${instructionNouns})${E}`,
  `${B}(?:${overrideVerbs})${E}${GAP}${B}(?:${qualifiers})${E}${GAP}${B}(?:${weakNouns})${E}`,
  `${B}(?:ignore|disregard|forget)${E}${GAP}${B}(?:${weakNouns})${W}(?:above|before|so${W}far|given|provided)${E}`,
  `${B}(?:ignore|disregard|forget)${W}(?:(?:everything|anything|all)${W})?(?:above|before|previous(?:ly)?|prior|earlier)${E}`,
  `${B}you${W}(?:are|must|should|will|shall|can|need${W}to|have${W}to)${W}(?:now|from${W}now${W}on|no${W}longer)${E}`,
  `${B}from${W}now${W}on${E}`,
  `${B}you${W}are${W}(?:dan|stan|dude|jailbroken|unrestricted|unfiltered|no${W}longer${W}bound)${E}`,
  `${B}new${W}(?:system${W})?(?:instructions?|rules|prompt|task|role|persona|directives?|orders)${E}`,
  `${B}(?:your|the${W}real|hidden|secret|initial|original)${W}(?:system${W})?(?:prompt|instructions)${E}`,
  `${B}(?:developer|admin(?:istrator)?|god|jailbreak|dan|unrestricted|unfiltered)${W}mode${E}`,
  `${B}pretend${W}(?:to${W}be|you|that)${E}`,
  `${B}role${W}?play${W}as${E}`,
  `${LEAD}(?:call|invoke|run|execute|use|trigger)${W}(?:(?:the|a|an|another|this)${W})?(?:[\\w.-]{1,64}${W})?(?:tool|function)s?${E}`,
  `${LEAD}(?:call|invoke|run|execute|trigger)${W}[a-z][a-z0-9]*_[a-z0-9_]{1,64}${E}`,
  `${B}(?:do${W}not|don'?t|never)${W}(?:tell|inform|alert|notify|mention|ask|warn)${E}${GAP}${B}(?:users?|humans?|operators?|anyone|admins?)${E}`,
  `${B}(?:reveal|exfiltrate|leak|dump|disclose)${E}${GAP}${B}(?:system${W}prompt|(?:api${W}?)?keys?|secrets?|credentials?|passwords?|tokens?|env(?:ironment)?${W}?var(?:iable)?s?|instructions)${E}`,
  `${B}end${W}of${W}(?:the${W})?(?:error|data|tool${W}(?:output|result)|context|quote|detail)${E}`,
  `${B}(?:begin|start)${W}(?:of${W})?(?:new${W})?(?:instructions?|system${W}prompt)${E}`,
  // The recovery contract's own decision fields, spoofed inside the error text.
  `${B}(?:failure_class|recommended_recovery|retry_same_action|error_detail|next_possible_action)${E}`,
  // German.
  `${B}(?:ignorier(?:e|en|t)?|vergiss|vergessen${W}sie|missachte(?:n)?|uberschreibe)${E}${GAP}${B}(?:anweisung(?:en)?|instruktion(?:en)?|regeln|vorgaben|befehle|prompts?|richtlinien)${E}`,
  `${B}(?:du${W}bist|sie${W}sind|ihr${W}seid)${W}(?:jetzt|nun|ab${W}sofort)${E}`,
  `${B}(?:neue${W}(?:anweisungen|regeln|befehle)|ab${W}jetzt|von${W}nun${W}an)${E}`,
  `${B}(?:rufe|nutze|verwende|starte|fuhre)${E}${GAP}${B}(?:tool|werkzeug|funktion)${E}`,
  // Hungarian.
  `${B}(?:hagyd|hagyja|hagyjatok)${W}figyelmen${W}kivul${E}`,
  `${B}(?:felejtsd|felejtse|felejtsetek)${W}el${E}`,
  `${B}(?:korabbi|elozo|fenti|eddigi|osszes)${W}(?:utasitas|szabaly|parancs)\\p{L}*`,
  `${B}(?:mostantol|uj${W}utasitas\\p{L}*)`,
  `${B}(?:hivd|hivja|hivjatok)${W}meg${E}`,
  `${B}(?:futtasd|futtassa|hasznald|hasznalja)${E}${GAP}${B}(?:eszkoz|fuggveny)\\p{L}*`,
  // French, Spanish, Portuguese, Italian, Dutch, Polish, Turkish.
  `${B}(?:ignore[zr]?|oublie[zr]?|neglige[zr]?)${E}${GAP}${B}(?:instructions?|consignes|regles|directives)${E}`,
  `${B}(?:(?:tu${W}es|vous${W}etes)${W}maintenant|a${W}partir${W}de${W}maintenant|nouvelles?${W}(?:instructions|consignes))${E}`,
  `${B}(?:appelle[zr]?|utilise[zr]?|execute[zr]?)${E}${GAP}${B}(?:l'?${W}?)?(?:outil|fonction)${E}`,
  `${B}(?:ignora(?:r)?|olvida(?:r)?|omite|ignore)${E}${GAP}${B}(?:instrucciones|reglas|indicaciones|directrices)${E}`,
  `${B}(?:ahora${W}eres|a${W}partir${W}de${W}ahora|desde${W}ahora|nuevas${W}(?:instrucciones|reglas))${E}`,
  `${B}(?:llama(?:r)?|usa(?:r)?|ejecuta(?:r)?)${E}${GAP}${B}(?:herramienta|funcion)${E}`,
  `${B}(?:ignore|ignora|esqueca|esquece)${E}${GAP}${B}(?:instrucoes|regras)${E}`,
  `${B}(?:agora${W}voce${W}e|novas${W}(?:instrucoes|regras))${E}`,
  `${B}(?:ignora|dimentica)${E}${GAP}${B}(?:istruzioni|regole)${E}`,
  `${B}(?:nuove${W}(?:istruzioni|regole)|ora${W}sei)${E}`,
  `${B}(?:negeer|vergeet)${E}${GAP}${B}(?:instructies|regels)${E}`,
  `${B}(?:zignoruj|ignoruj|zapomnij)${E}${GAP}${B}(?:instrukcj|polecen|zasad)\\p{L}*`,
  `${B}(?:onceki|tum)${W}(?:talimat|kural)\\p{L}*`,
];

const native: readonly string[] = [
  // Russian and Ukrainian.
  `${B}(?:проигнорир|игнорир|забуд|отмени|пренебреги|проігнору|ігнору)\\p{L}*${GAP}${B}(?:инструкци|указани|правил|промпт|предыдущ|інструкці|вказівк)\\p{L}*`,
  `${B}не${W}обращай${W}внимания${E}`,
  `${B}(?:теперь${W}ты|ты${W}теперь|отныне|с${W}этого${W}момента|тепер${W}ти)${E}`,
  `${B}(?:новые${W}(?:инструкции|указания|правила)|системн\\p{L}*${W}(?:промпт|подсказк|инструкци)\\p{L}*)`,
  `${B}(?:вызови|вызовите|запусти|запустите|используй|используйте|выполни|выполните|виклич|використай)${E}${GAP}${B}(?:инструмент|функци|інструмент)\\p{L}*`,
  // Chinese (simplified and traditional).
  `(?:忽略|忽視|忽视|无视|無視|不要理会|不要理會|忘记|忘記|忘掉|跳过|跳過|覆盖|覆蓋)${GAP}(?:指令|指示|说明|說明|规则|規則|提示|命令|要求|设定|設定)`,
  '(?:你现在是|你現在是|从现在开始|從現在開始|从现在起|從現在起|新的指令|新指令|新的规则|系统提示|系統提示|系统指令|系統指令)',
  '(?:调用|調用)[^。；！？\\n]{0,20}?(?:工具|函数|函數)',
  '(?:请|請|立即|立刻|马上|馬上|然后|然後|现在|現在)[^。；！？\\n]{0,6}?(?:使用|执行|執行|运行|運行)[^。；！？\\n]{0,20}?(?:工具|函数|函數)',
  // Japanese.
  '(?:以前|前|上記|これまで)の(?:指示|命令|ルール|指令)を?(?:無視|忘れ)',
  '(?:指示|命令|ルール)を(?:無視|忘れ)',
  '(?:今から|これから)(?:あなたは|君は|お前は)',
  '(?:新しい(?:指示|命令)|ツールを(?:呼び出|実行|使))',
  // Korean.
  '(?:이전|위의|앞의|모든)\\s{0,4}(?:지시|명령|지침|규칙)\\S{0,4}\\s{0,4}(?:무시|잊어)',
  '(?:지금부터\\s{0,4}(?:너는|당신은)|새로운\\s{0,4}(?:지시|명령|지침)|도구를\\s{0,4}(?:호출|실행|사용))',
];

// Chat-template role markers and tags, on the latin skeleton, wherever they are.
const markers: readonly string[] = [
  '<\\|[^|<>\\n]{0,40}\\|>',
  '\\[\\s{0,2}/?\\s{0,2}(?:inst|sys|system|user|assistant|tool)\\s{0,2}\\]',
  '<</?sys>>',
  '</?\\s{0,2}(?:system|assistant|user|human|developer|tool|tool_calls?|tool_results?|tool_use|function_calls?|function_results?|invoke|parameter|instructions?|prompt|im_start|im_end|error_detail|s)(?![\\w-])[^<>\\n]{0,80}>',
];

// Role headers: `system:`, `### Human:`, `assistant:` at the start of the text, of a line
// or of a sentence (`file system: read-only` stays); the weaker `User:` and `Tool:` only
// after a line break (`User: arn:aws:… is not authorized` starts AWS's AccessDenied).
const roleHeaders: readonly string[] = [
  '(?<![^\\n.!?;>#*|"\'(\\[{)\\]}])[ \\t#*>]{0,8}(?:system|assistant|developer|human)[ \\t]{0,4}:',
  '(?<=\\n)[ \\t#*>]{0,8}(?:user|tool|instructions?|prompt)[ \\t]{0,4}:',
  '#{1,6}[ \\t]{0,4}(?:[a-z]{1,20}[ \\t]{1,4}){0,2}(?:system|assistant|user|human|developer|instructions?|response|input|tool)\\b[ \\t]{0,4}:?',
];

// Capitalised role headers anywhere: once line breaks are collapsed (the classifier's
// message is one line), `Not found\n\nHuman: …` arrives as `Not found Human: …`.
const capitalisedHeaders: readonly string[] = [
  `${B}(?:System|SYSTEM|Assistant|ASSISTANT|Human|HUMAN|Developer|DEVELOPER)[ \\t]{0,4}:`,
];

/** What the skeleton folding does to text, applied to a pattern's literal letters. */
export type Fold = (text: string) => string;

/** The patterns, compiled once against the folding the skeleton uses. */
export function compileInstructionPatterns(fold: Fold): {
  latin: RegExp;
  latinCased: RegExp;
  native: RegExp;
} {
  const join = (sources: readonly string[]) => sources.map((source) => `(?:${source})`).join('|');
  return {
    latin: new RegExp(join([...markers, ...roleHeaders, ...latin]), 'giu'),
    latinCased: new RegExp(join(capitalisedHeaders), 'gu'),
    native: new RegExp(fold(join(native)), 'giu'),
  };
}
