import {parsePaymentRequest} from '../src/agents/payments/parse-payment-request.js';
for (const t of ['Send $200 to Jiro','send 50 EUR to Ana','Pay Bob 12.50 dollars','次郎さんに200ドル送金してください','花子さんに5000円を送金して','マリアに30ユーロ払って','transfer €1,000.50 to Mary Jane please','Send 20 to Tom.','hello','pay 3 to bob','send 5 usd to ana', 'Send 200 for Jiro'])
  console.log(t, JSON.stringify(parsePaymentRequest(t)));
console.log(parsePaymentRequest('Pay Mary Jane 20 dollars'), parsePaymentRequest('transfer €1,000.50 to Mary Jane please'))
