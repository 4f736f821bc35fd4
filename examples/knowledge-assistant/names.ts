/** The agents of the knowledge assistant, as seed 003 names them. */
export const ROOT_AGENT = 'agent_root';
export const DOMAIN_AGENT = 'subagent_domain_lifecycle';
export const DOCUMENT_AGENT = 'subagent_document_processor';

/** Tool names, shared by the tools and the offline rules that call them. */
export const TOOLS = {
  recordUserName: 'record_user_name',
  startDomainIntent: 'start_domain_intent',
  startDocument: 'start_document',
  fetchDomains: 'fetch_user_knowledge_domains',
  prettify: 'prettify_domain_description',
  reviewDraft: 'review_domain_draft',
  saveDomain: 'save_domain',
  cancelIntent: 'cancel_domain_intent',
  processPdf: 'process_pdf_link',
  processYoutube: 'process_youtube_link',
  processPage: 'process_ordinary_page',
  relevance: 'define_topic_relevance',
  extractFacts: 'extract_facts_from_text',
  pickFacts: 'pick_facts_to_save',
  saveFacts: 'save_fact_to_memory',
  finishDocument: 'finish_document',
} as const;

/** The choices a person has on a prettified draft; any other text is a corrected draft. */
export const REVIEW_OPTIONS = ['Approve', 'Cancel'] as const;
